package rules

import (
	"errors"
	"testing"
)

// FuzzCompile checks that no expression crashes the compiler or the VM and
// that every failure is an *ExprError with a position inside the source.
func FuzzCompile(f *testing.F) {
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
			if ee.Line < 1 {
				t.Fatalf("line %d for %q", ee.Line, src)
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
