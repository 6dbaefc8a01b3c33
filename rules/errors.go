package rules

import (
	"errors"
	"fmt"
)

// ErrNotFound is returned when a named rule does not exist.
var ErrNotFound = errors.New("rule not found")

// ErrDuplicate is returned when two rules share a name.
var ErrDuplicate = errors.New("duplicate rule name")

// ErrTTLOverMax is wrapped by the *[FieldError] of a TTL over the table's
// MaxTTL.
var ErrTTLOverMax = errors.New("ttl over the maximum")

// FieldError reports an invalid field of a rule.
type FieldError struct {
	// Rule is the rule's name (empty when the name itself is missing).
	Rule string
	// Field is the field's path, e.g. "probability" or "fault.mode".
	Field string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

func (e *FieldError) Error() string {
	if e.Rule == "" {
		return fmt.Sprintf("rule: %s %s", e.Field, e.Msg)
	}
	return fmt.Sprintf("rule %q: %s %s", e.Rule, e.Field, e.Msg)
}

func (e *FieldError) Unwrap() error { return e.Err }

// ExprError reports a "when" expression that does not compile: a syntax
// error, an unknown identifier or a type error.
type ExprError struct {
	// Rule is the rule's name.
	Rule string
	// Expr is the expression as written.
	Expr string
	// Line and Column locate the mistake (1-based line, 0-based column,
	// counted in runes as expr-lang does). Offset is the rune offset.
	Line, Column, Offset int
	// Msg is expr-lang's message without the snippet.
	Msg string
	// Snippet is the offending line with a caret under the position.
	Snippet string
	// Err is expr-lang's error.
	Err error
}

func (e *ExprError) Error() string {
	return fmt.Sprintf("rule %q: when: %s (line %d, column %d)%s", e.Rule, e.Msg, e.Line, e.Column, e.Snippet)
}

func (e *ExprError) Unwrap() error { return e.Err }
