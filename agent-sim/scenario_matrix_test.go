package agentsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/config"
)

// matrixBody is a 5-fault × 2-tool matrix over an upstream the helper
// server never calls: the test is about the cells, not the faults.
const matrixBody = `upstreams:
  - {name: api, protocol: http, target: "http://127.0.0.1:1"}
agent:
  personas: [diligent]
  hosts: [raw]
  budget: 1
matrix:
  faults:
    - {name: lost, upstream: api, when: 'method == "POST"', fault: {kind: response_lost}}
    - {name: hang, upstream: api, fault: {kind: timeout}}
    - {name: refused, upstream: api, fault: {kind: unreachable}}
    - {name: busy, upstream: api, fault: {kind: http_error, status: 503}}
    - {name: cut, upstream: api, fault: {kind: partial_write, bytes: 3}}
  tools:
    - {tool: fail, args: {id: A-1}}
    - {tool: gateway, args: {id: G-1}, faults: [lost, hang, refused, busy, cut]}
`

func TestMatrixCellsNamedInEveryFormat(t *testing.T) {
	sc := helperScenario(t, "serve", matrixBody)
	cells := sc.Cells()
	if len(cells) != 10 {
		t.Fatalf("%d cells, want 10", len(cells))
	}
	var names []string
	for _, tool := range []string{"fail", "gateway"} {
		for _, f := range []string{"lost", "hang", "refused", "busy", "cut"} {
			names = append(names, "helper-serve / "+f+" / "+tool)
		}
	}
	for i, c := range cells {
		if c.Name != names[i] || len(c.Steps) != 1 || len(c.Rules) != 1 || c.Rules[0].Name != strings.Split(names[i], " / ")[1] {
			t.Errorf("cell %d: %q steps %v rules %d", i, c.Name, c.Steps, len(c.Rules))
		}
	}
	rep, err := Run(context.Background(), []*Scenario{sc}, RunOptions{Seed: 3, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 10 {
		t.Fatalf("%d runs, want 10 (5 faults × 2 tools × 1 persona × 1 host)", len(rep.Runs))
	}
	for i, r := range rep.Runs {
		if r.Scenario != names[i] || r.Error != "" || len(r.Calls) != 1 {
			t.Errorf("run %d: scenario %q error %q calls %d", i, r.Scenario, r.Error, len(r.Calls))
		}
	}
	formats := map[string]func(*bytes.Buffer) error{
		"json":     func(b *bytes.Buffer) error { return rep.WriteJSON(b) },
		"text":     func(b *bytes.Buffer) error { return rep.WriteText(b, TextOptions{}) },
		"markdown": func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) },
		"junit":    func(b *bytes.Buffer) error { return rep.WriteJUnit(b) },
		"html":     func(b *bytes.Buffer) error { return rep.WriteHTML(b) },
	}
	for format, write := range formats {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := b.String()
		if format == "html" || format == "junit" {
			out = html.UnescapeString(out)
		}
		for _, n := range names {
			if !strings.Contains(out, n) {
				t.Errorf("%s report does not name the cell %q", format, n)
			}
		}
	}
}

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
			_, err := ParseScenario("m.yaml", []byte(head+tt.body))
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
	sc, err := ParseScenario("m.yaml", []byte("name: s\nserver: {command: [srv]}\nmatrix:\n  tools:\n    - {tool: a, args: {x: 1}}\n    - {tool: a, args: {}, invalid: true, faults: []}\n"))
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
