package agentsim

import (
	"bytes"
	"context"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"html"
	"strings"
	"testing"
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
	rep, err := Run(context.Background(), []*scenario.Scenario{sc}, RunOptions{Seed: 3, Concurrency: 4})
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
		"text":     func(b *bytes.Buffer) error { return rep.WriteText(b, report.TextOptions{}) },
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
