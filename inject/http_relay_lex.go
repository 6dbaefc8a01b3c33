package inject

import "bytes"

// The relay's lexical helpers: lines, header fields, tokens, numbers.

// nextLine splits the first line (with its terminator) off b.
func nextLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	return b[:i+1], b[i+1:]
}

func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'})
}

// splitHeader splits a header line into its name and trimmed value; ok
// is false for an obsolete line folding or a line without a colon.
func splitHeader(line []byte) (name, value []byte, ok bool) {
	line = trimEOL(line)
	i := bytes.IndexByte(line, ':')
	if i <= 0 || line[0] == ' ' || line[0] == '\t' || line[i-1] == ' ' || line[i-1] == '\t' {
		return nil, nil, false
	}
	return line[:i], bytes.Trim(line[i+1:], " \t"), true
}

// validHeader reports whether a request header line is one net/http
// would accept as it is: a token for a name, no control bytes in the
// value, CRLF at the end. Anything else goes to net/http, so that the
// relay never forwards what a server behind it might read differently.
func validHeader(line, name, value []byte) bool {
	return bytes.HasSuffix(line, []byte("\r\n")) && validField(name, value)
}

// validField reports whether name is a token and value holds no control
// bytes (tab aside), as net/textproto requires of every header.
func validField(name, value []byte) bool {
	for _, c := range name {
		if !tokenByte(c) {
			return false
		}
	}
	for _, c := range value {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// tokenByte reports whether c may be part of a token (RFC 9110 §5.6.2):
// visible ASCII but for the delimiters.
func tokenByte(c byte) bool {
	// Bit i of lo (hi) is ASCII byte i (64+i).
	const (
		lo = 0x03ff6cfa00000000 // ! # $ % & ' * + - . 0-9
		hi = 0x57ffffffc7fffffe // A-Z ^ _ ` a-z | ~
	)
	if c < 64 {
		return lo>>c&1 != 0
	}
	return c < 128 && hi>>(c-64)&1 != 0
}

// plainHost reports whether a Host value is a host name, IPv4 or
// bracketed IPv6 address and optional port: a subset of what net/http
// accepts (it answers 400 to the rest), so that the relay never forwards
// a request the rule path would refuse.
func plainHost(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '-', c == '_', c == ':', c == '[', c == ']':
		default:
			return false
		}
	}
	return true
}

// foldEq reports whether b equals the ASCII string s, ignoring case.
func foldEq(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// internMethod avoids allocating a string for the common methods.
func internMethod(m []byte) string {
	switch string(m) {
	case "GET":
		return "GET"
	case "POST":
		return "POST"
	case "PUT":
		return "PUT"
	case "DELETE":
		return "DELETE"
	case "HEAD":
		return "HEAD"
	case "PATCH":
		return "PATCH"
	case "OPTIONS":
		return "OPTIONS"
	}
	return string(m)
}

// parseLength parses a Content-Length value (digits only, as net/http).
func parseLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
