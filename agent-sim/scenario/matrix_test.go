package scenario

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/config"
)

// TestMatrixErrors: every mistake in a matrix is reported at its line
// and field.
func TestMatrixErrors(t *testing.T) {
	head := "server: {command: [srv]}\nupstreams:\n  - {name: api, protocol: http, target: \"http://127.0.0.1:1\"}\n"
	tests := []struct {
		name, body, want string
	}{
		{"unknown field", "matrix:\n  fault: []\nsteps: [{tool: a}]\n", `m.yaml:5: matrix.fault: unknown field "fault" (did you mean "faults"?)`},
		{"empty", "matrix: {faults: []}\nsteps: [{tool: a}]\n", "m.yaml:4: matrix: needs faults, tools or both"},
		{"bad kind", "matrix:\n  faults:\n    - {name: x, upstream: api, fault: {kind: lost}}\nsteps: [{tool: a}]\n", "m.yaml:6: matrix.faults[0].fault.kind"},
		{"unknown upstream", "matrix:\n  faults:\n    - {name: x, upstream: db, fault: {kind: timeout}}\nsteps: [{tool: a}]\n", `m.yaml:6: matrix.faults[0].upstream: "db" is not declared`},
		{"twice", "matrix:\n  faults:\n    - {name: x, fault: {kind: timeout}}\n    - {name: x, fault: {kind: timeout}}\nsteps: [{tool: a}]\n", `m.yaml:7: matrix.faults[1].name: rule "x" is declared twice`},
		{"clash with rules", "rules:\n  - {name: x, fault: {kind: timeout}}\nmatrix:\n  faults:\n    - {name: x, fault: {kind: timeout}}\nsteps: [{tool: a}]\n", `m.yaml:8: matrix.faults[0].name: "x" is also the name of a rule`},
		{"tool missing", "matrix:\n  tools:\n    - {args: {a: 1}}\n", "m.yaml:6: matrix.tools[0].tool: is required"},
		{"tool unknown fault", "matrix:\n  faults:\n    - {name: x, fault: {kind: timeout}}\n  tools:\n    - {tool: a, faults: [y]}\n", `m.yaml:8: matrix.tools[0].faults: "y" is not the name of a fault`},
		{"tool field", "matrix:\n  tools:\n    - {tool: a, arg: {}}\n", `m.yaml:6: matrix.tools[0].arg: unknown field "arg"`},
		{"tool twice", "matrix:\n  tools:\n    - {tool: a}\n    - {tool: a}\n", `m.yaml:7: matrix.tools[1]: the same call to "a" is listed twice`},
		{"too many cells", bigMatrix(40, 30), "m.yaml:5: matrix: 1200 cells, more than 1024"},
		{"no steps, no tools", "matrix:\n  faults:\n    - {name: x, fault: {kind: timeout}}\n", "steps: at least one step is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("m.yaml", []byte(head+tt.body))
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want *config.Error containing %q", err, tt.want)
			}
		})
	}
}

// TestMatrixToolsOnly: a matrix of tools alone names cells by tool, and
// an invalid call is its own cell.
func TestMatrixToolsOnly(t *testing.T) {
	sc, err := Parse("m.yaml", []byte("name: s\nserver: {command: [srv]}\nmatrix:\n  tools:\n    - {tool: a, args: {x: 1}}\n    - {tool: a, args: {}, invalid: true, faults: []}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range sc.Cells() {
		got = append(got, fmt.Sprintf("%s:%v", c.Name, c.Steps[0].Invalid))
	}
	if want := "s / a:false,s / a (invalid):true"; strings.Join(got, ",") != want {
		t.Fatalf("cells %v, want %s", got, want)
	}
}

// bigMatrix is a matrix of faults × tools.
func bigMatrix(faults, tools int) string {
	var b strings.Builder
	b.WriteString("matrix:\n  faults:\n")
	for i := range faults {
		fmt.Fprintf(&b, "    - {name: f%d, fault: {kind: timeout}}\n", i)
	}
	b.WriteString("  tools:\n")
	for i := range tools {
		fmt.Fprintf(&b, "    - {tool: t%d}\n", i)
	}
	return b.String()
}
