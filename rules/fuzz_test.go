package rules

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCompile checks that no expression crashes the compiler or the VM and
// that every failure is an *ExprError with a position inside the source.
// The deep seeds are the inputs that once overflowed the parser's stack.
func FuzzCompile(f *testing.F) {
	f.Add(deepList(400_000))
	f.Add(deepList(MaxExprDepth + 1))
	f.Add(strings.Repeat("!", 2*MaxExprDepth) + "true")
	f.Add(`path == "` + strings.Repeat("(", 2*MaxExprDepth) + `" && ` + strings.Repeat("(", MaxExprDepth) + "true" + strings.Repeat(")", MaxExprDepth))
	for _, s := range []string{
		`method == "POST" && path == "/shipments"`,
		`attempt > 1 || tool in ["a", "b"]`,
		`header["X-Id"] startsWith "abc"`,
		`args.order_id == "A-1"`,
		`conn % 2 == 0`, `body_size > 1e3`, `(`, `"unterminated`, `request ==`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := CompileExpr("fuzz", src)
		if err != nil {
			var ee *ExprError
			if !errors.As(err, &ee) {
				t.Fatalf("error %T is not *ExprError", err)
			}
			if ee.Line < 1 || ee.Offset < 0 || ee.Offset > utf8.RuneCountInString(src) {
				t.Fatalf("line %d, offset %d for %.200q", ee.Line, ee.Offset, src)
			}
			return
		}
		if prog == nil {
			return
		}
		tab := NewTable(TableOptions{})
		if err := tab.Replace([]Rule{{Name: "f", When: src, Fault: FaultSpec{Kind: "k"}}}); err != nil {
			t.Fatalf("compiled alone but not in a table: %v", err)
		}
		var ev Evaluator
		ev.Match(tab.Load(), Env{Args: map[string]any{"order_id": "A-1"}}, tab.Now(), nil)
	})
}
