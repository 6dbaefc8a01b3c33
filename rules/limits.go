package rules

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds on a "when" expression, checked before expr-lang sees it.
// expr-lang's parser, checker and compiler recurse once per level of
// nesting, so a deeply nested expression costs stack in proportion (400,000
// levels overflow the goroutine stack and kill the process, which a
// recover cannot catch). A condition a person writes is a few hundred
// bytes and a few levels deep.
const (
	// MaxExprBytes is the longest expression accepted, in bytes.
	MaxExprBytes = 64 << 10
	// MaxExprDepth is the deepest nesting accepted: of (), [] and {},
	// plus runs of prefix operators (see tooDeep).
	MaxExprDepth = 100
)

// ErrExprLimit is wrapped by the *[ExprError] of an expression over
// [MaxExprBytes] or [MaxExprDepth].
var ErrExprLimit = errors.New("expression over a limit")

// CheckExprLimits returns an *[ExprError] (wrapping [ErrExprLimit]) when
// src is over [MaxExprBytes] or nested deeper than [MaxExprDepth], nil
// otherwise. [CompileExpr] calls it; whoever compiles another expr-lang
// expression from input calls it first too.
func CheckExprLimits(rule, src string) error {
	if err := checkExprLimits(rule, src); err != nil {
		return err
	}
	return nil
}

// checkExprLimits returns an *ExprError located at the first byte past a
// limit, or nil. It scans the source once, without allocating, skipping
// string literals and comments the way expr-lang's lexer does, so that a
// bracket inside "a(b" does not count.
func checkExprLimits(rule, src string) *ExprError {
	if len(src) > MaxExprBytes {
		return limitError(rule, src, MaxExprBytes,
			fmt.Sprintf("expression over %d bytes (the limit)", MaxExprBytes))
	}
	if at := tooDeep(src, MaxExprDepth); at >= 0 {
		return limitError(rule, src, at,
			fmt.Sprintf("nesting deeper than %d levels (the limit)", MaxExprDepth))
	}
	return nil
}

// tooDeep returns the byte offset of the first token that nests deeper
// than limit, or -1. Nesting is that of (), [] and {}, plus a run of
// prefix operators (!, -, +, not), each of which the parser takes by
// recursing: `!!!!…true` is as deep as it is long. Counting every such
// operator as prefix (the second "-" of "a - -b" is, the first is not)
// over-counts by one at most, which no real condition comes near.
// Closing brackets are not matched against opening ones: a mismatch is
// the parser's to report.
func tooDeep(src string, limit int) int {
	depth, run := 0, 0
	for i := 0; i < len(src); i++ {
		at, prefix := i, false
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue // a run of operators may be spaced out
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth = max(depth-1, 0)
		case c == '!' && !strings.HasPrefix(src[i:], "!="), c == '-', c == '+':
			run, prefix = run+1, true
		case c == 'n' && isWord(src, i, "not"):
			run, prefix = run+1, true
			i += len("not") - 1
		case c == '"' || c == '\'':
			i = skipQuoted(src, i)
		case c == '`':
			i = skipRaw(src, i)
		case c == '/':
			i = skipComment(src, i)
		}
		if depth+run > limit {
			return at
		}
		if !prefix {
			run = 0
		}
	}
	return -1
}

// isWord reports whether the identifier w stands alone at src[i:].
func isWord(src string, i int, w string) bool {
	if !strings.HasPrefix(src[i:], w) || (i > 0 && isIdentByte(src[i-1])) {
		return false
	}
	j := i + len(w)
	return j == len(src) || !isIdentByte(src[j])
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf
}

// skipQuoted returns the offset of the quote closing the string literal
// opened at i: backslash escapes the next byte; like expr-lang, a newline
// or the end ends an unterminated literal.
func skipQuoted(src string, i int) int {
	quote := src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case quote, '\n':
			return i
		}
	}
	return len(src)
}

// skipRaw returns the offset of the backquote closing the raw string
// opened at i; a doubled backquote inside stands for one.
func skipRaw(src string, i int) int {
	for i++; i < len(src); i++ {
		if src[i] != '`' {
			continue
		}
		if i+1 < len(src) && src[i+1] == '`' {
			i++
			continue
		}
		return i
	}
	return len(src)
}

// skipComment returns the last offset of the // or /* */ comment starting
// at i, or i when the slash is the division operator.
func skipComment(src string, i int) int {
	if i+1 >= len(src) {
		return i
	}
	switch src[i+1] {
	case '/':
		if j := strings.IndexByte(src[i+2:], '\n'); j >= 0 {
			return i + 2 + j
		}
		return len(src)
	case '*':
		if j := strings.Index(src[i+2:], "*/"); j >= 0 {
			return i + 2 + j + 1
		}
		return len(src)
	}
	return i
}

// limitError locates the byte at off the way expr-lang locates its
// errors: a 1-based line, and a 0-based column and an offset in runes.
// There is no snippet: the line may be the whole, huge, expression.
func limitError(rule, src string, off int, msg string) *ExprError {
	for off > 0 && off < len(src) && !utf8.RuneStart(src[off]) {
		off--
	}
	before := src[:off]
	lineStart := strings.LastIndexByte(before, '\n') + 1
	return &ExprError{
		Rule: rule, Expr: src, Msg: msg, Err: ErrExprLimit,
		Line:   strings.Count(before, "\n") + 1,
		Column: utf8.RuneCountInString(before[lineStart:]),
		Offset: utf8.RuneCountInString(before),
	}
}
