package main

import (
	"fmt"
	"net/textproto"
	"slices"
	"strings"
)

// headerFlags collect scan's --header "NAME: VALUE" flags, curl's syntax.
type headerFlags []pair

func (h *headerFlags) String() string { return "" }

// Set refuses what could not be sent as one header line: a name that is
// not an HTTP token, or a value carrying a line break (it would smuggle a
// second header into every request).
func (h *headerFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok || name == "":
		return fmt.Errorf("%q: want \"NAME: VALUE\"", s)
	case strings.IndexFunc(name, func(r rune) bool { return !isTokenChar(r) }) >= 0:
		return fmt.Errorf("%q: %q is not a header name", s, name)
	case strings.ContainsAny(value, "\r\n\x00"):
		return fmt.Errorf("header %s: a value cannot hold a line break", name)
	}
	name = textproto.CanonicalMIMEHeaderKey(name)
	if slices.ContainsFunc(*h, func(x pair) bool { return x.name == name }) {
		return fmt.Errorf("header %s given twice", name)
	}
	if len(*h) >= maxPairs {
		return fmt.Errorf("more than %d headers", maxPairs)
	}
	*h = append(*h, pair{name, value})
	return nil
}

// isTokenChar reports whether r may appear in an HTTP header name
// (RFC 9110's tchar).
func isTokenChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
