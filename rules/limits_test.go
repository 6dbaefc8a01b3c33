package rules

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// deepList is `len([[[…]]]) > 0` with n levels of brackets: the input
// that overflowed expr-lang's parser stack at 400,000 levels.
func deepList(n int) string {
	return "len(" + strings.Repeat("[", n) + strings.Repeat("]", n) + ") > 0"
}

func TestExprLimits(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + " > 0" }
	tests := []struct {
		name     string
		src      string
		wantMsg  string // empty: compiles
		line     int
		col, off int
	}{
		{name: "depth at the limit", src: nest(MaxExprDepth)},
		{name: "depth over the limit", src: nest(MaxExprDepth + 1), wantMsg: "nesting deeper than 100 levels (the limit)", line: 1, col: 100, off: 100},
		{name: "list inside a call", src: deepList(MaxExprDepth), wantMsg: "nesting deeper than 100 levels", line: 1, col: 4 + 99, off: 4 + 99},
		{name: "400,000 levels", src: deepList(400_000), wantMsg: "expression over 65536 bytes (the limit)", line: 1, col: MaxExprBytes, off: MaxExprBytes},
		{name: "map literal", src: strings.Repeat("{a: ", 101) + "1" + strings.Repeat("}", 101) + " != nil", wantMsg: "nesting deeper", line: 1, col: 400, off: 400},
		{name: "brackets in strings do not count", src: `path == "` + strings.Repeat("(", 200) + `" || path == '` + strings.Repeat("[", 200) + `'`},
		{name: "escaped quotes stay inside the string", src: `path == "\"` + strings.Repeat("{", 200) + `\\"`},
		{name: "brackets in raw strings do not count", src: "path == `" + strings.Repeat("(", 200) + "``" + strings.Repeat("[", 200) + "`"},
		{name: "brackets in comments do not count", src: "true // " + strings.Repeat("(", 200) + "\n&& true /* " + strings.Repeat("[", 200) + " */"},
		{name: "position on a later line", src: "true &&\n  " + nest(MaxExprDepth+1), wantMsg: "nesting deeper", line: 2, col: 2 + 100, off: 8 + 2 + 100},
		{name: "a run of prefix operators nests", src: strings.Repeat("!", MaxExprDepth+1) + "true", wantMsg: "nesting deeper", line: 1, col: 100, off: 100},
		{name: "spaced prefix operators nest", src: strings.Repeat("not ", MaxExprDepth+1) + "true", wantMsg: "nesting deeper", line: 1, col: 400, off: 400},
		{name: "operators between operands do not", src: strings.Repeat("1 - -1 + ", 200) + "1 > 0 && !(attempt != 1)"},
		{name: "columns count runes", src: `path == "é" || ` + nest(MaxExprDepth+1), wantMsg: "nesting deeper", line: 1, col: 15 + 100, off: 15 + 100},
		{name: "size at the limit", src: "true" + strings.Repeat(" ", MaxExprBytes-4)},
		{name: "size over the limit", src: "true" + strings.Repeat(" ", MaxExprBytes-3), wantMsg: "expression over 65536 bytes", line: 1, col: MaxExprBytes, off: MaxExprBytes},
		{name: "size counted in bytes, located in runes", src: strings.Repeat("é", MaxExprBytes/2+1), wantMsg: "expression over", line: 1, col: MaxExprBytes / 2, off: MaxExprBytes / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileExpr("deep", tt.src)
			if tt.wantMsg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ee *ExprError
			if !errors.As(err, &ee) || !errors.Is(err, ErrExprLimit) {
				t.Fatalf("err = %T %v, want an *ExprError wrapping ErrExprLimit", err, err)
			}
			if !strings.Contains(ee.Msg, tt.wantMsg) || ee.Rule != "deep" {
				t.Errorf("message %q (rule %q), want %q", ee.Msg, ee.Rule, tt.wantMsg)
			}
			if ee.Line != tt.line || ee.Column != tt.col || ee.Offset != tt.off {
				t.Errorf("at line %d column %d offset %d, want %d %d %d", ee.Line, ee.Column, ee.Offset, tt.line, tt.col, tt.off)
			}
		})
	}
}

// TestDeepExprCostsLittle: refusing the 400,000-level input allocates
// next to nothing (it is refused before parsing), and the worst inputs
// within the limits stay far below what the unbounded parser took
// (0.4-1 GB). A memory bound, not a timing one.
func TestDeepExprCostsLittle(t *testing.T) {
	const bound = 16 << 20
	for _, src := range []string{
		deepList(400_000),
		deepList(MaxExprDepth + 1),
		strings.Repeat("!", MaxExprBytes-4) + "true",
		strings.Repeat(strings.Repeat("(", MaxExprDepth)+"1"+strings.Repeat(")", MaxExprDepth)+"+", MaxExprBytes/202-1) + "1 > 0",
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _ = CompileExpr("deep", src)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > bound {
			t.Errorf("%.20q… (%d bytes) allocated %d bytes, want < %d", src, len(src), got, bound)
		}
		if got := after.StackInuse; got > bound {
			t.Errorf("%.20q…: stacks in use %d bytes, want < %d", src, got, bound)
		}
	}
}
