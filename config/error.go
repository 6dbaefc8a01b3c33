package config

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors wrapped by [Error.Err], for errors.Is.
var (
	// ErrSyntax marks a document that is not valid YAML.
	ErrSyntax = errors.New("invalid YAML")
	// ErrUnknownField marks a key the schema does not know.
	ErrUnknownField = errors.New("unknown field")
	// ErrType marks a value of the wrong type (a list where a string
	// belongs, a word where a number belongs).
	ErrType = errors.New("wrong type")
	// ErrRequired marks a missing field that has no default.
	ErrRequired = errors.New("required field missing")
	// ErrDuplicate marks a key, upstream or rule name given twice.
	ErrDuplicate = errors.New("duplicate")
	// ErrInvalid marks a value of the right type that is not acceptable.
	ErrInvalid = errors.New("invalid value")
)

// Error is a problem in a YAML document, located so that an editor can
// jump to it.
type Error struct {
	// File is the document's name as given to [Parse] or [Load].
	File string
	// Line is 1-based; 0 when the position is unknown.
	Line int
	// Column is 1-based and set only when it adds to the line: the
	// position of a mistake inside a "when" expression.
	Column int
	// Field is the path of the offending field: "rules[0].fault.delay".
	Field string
	// Msg says what is wrong and, where it helps, how to write it.
	Msg string
	// Err is the underlying error: one of this package's sentinels, a
	// *rules.FieldError, *rules.ExprError, *inject.SpecError, or an I/O
	// error.
	Err error
}

// Error formats as file:line[:column]: field: message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Suggest returns the name in known closest to s when s is a plausible
// typo of it (an edit distance under 3), else "": the "did you mean" of
// an error message.
func Suggest(s string, known []string) string { return suggest(s, known) }

// suggest returns the known name closest to s when it is a plausible typo.
func suggest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := distance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the Levenshtein distance, enough for field-name typos.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
