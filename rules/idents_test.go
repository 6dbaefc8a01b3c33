package rules

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestFields(t *testing.T) {
	for _, tc := range []struct {
		when string
		want []string
	}{
		{``, nil},
		{`true`, []string{}},
		{`method == "POST"`, []string{"method"}},
		{`conn >= 2 && tool == "pay"`, []string{"conn", "tool"}},
		{`header["X-A"] == "1" || query.q == "x"`, []string{"header", "query"}},
		{`$env.path == "/"`, []string{"path"}},
		{`$env["body_size"] > 1`, []string{"body_size"}},
		{`let m = 1; m == 1`, []string{}}, // a variable, not a field
		{`any(["a"], {# == upstream})`, []string{"upstream"}},
	} {
		t.Run(tc.when, func(t *testing.T) {
			prog, err := CompileExpr("r", tc.when)
			if err != nil {
				t.Fatal(err)
			}
			got := Fields(prog)
			if tc.want == nil {
				if got != nil {
					t.Fatalf("Fields = %v, want nil", got)
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Fields = %v, want %v", got, tc.want)
			}
		})
	}
}

// refuseOnly is a fault that forbids "method" in its rule's condition.
type refuseOnly struct{}

func (refuseOnly) CheckWhen(fields []string) error {
	if slices.Contains(fields, "method") {
		return errors.New("reads method")
	}
	return nil
}

func TestWhenChecker(t *testing.T) {
	tab := NewTable(TableOptions{ParseFault: func(FaultSpec) (any, error) { return refuseOnly{}, nil }})
	err := tab.Check(Rule{Name: "r", When: `method == "POST"`, Fault: FaultSpec{Kind: "x"}})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "when" || !strings.Contains(fe.Msg, "reads method") {
		t.Fatalf("Check = %v, want a FieldError on when", err)
	}
	if err := tab.Check(Rule{Name: "r", When: `conn > 1`, Fault: FaultSpec{Kind: "x"}}); err != nil {
		t.Fatalf("Check = %v, want nil", err)
	}
}
