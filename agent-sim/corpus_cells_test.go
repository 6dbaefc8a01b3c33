package agentsim

import (
	"context"
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"path/filepath"
	"testing"
	"time"
)

// corpusFault is one scenario of corpus_labels.txt: a rule on the orders
// upstream and the side effects that count orders.
type corpusFault struct {
	when, fault string // YAML flow mappings
	matcher     string
	probe       bool
}

// goodMatcher is the documented idiom: only requests the upstream
// answered with a 2xx.
const goodMatcher = `method != "GET" && upstream_status >= 200 && upstream_status < 300`

var corpusFaults = map[string]corpusFault{
	"lost":      {`method != "GET"`, `{kind: response_lost, mode: reset}`, goodMatcher, true},
	"down":      {"", `{kind: unreachable}`, goodMatcher, true},
	"blackhole": {"", `{kind: unreachable, mode: blackhole}`, goodMatcher, true},
	"late500":   {`method == "POST"`, `{kind: http_error, status: 500, after_upstream: true}`, goodMatcher, true},
	"before500": {`method == "POST"`, `{kind: http_error, status: 500}`, goodMatcher, false},
	"putlost":   {`method == "PUT"`, `{kind: response_lost, mode: reset}`, `method == "PUT" && upstream_status >= 200 && upstream_status < 300`, false},
}

// corpusCellScenario is scenario name for the corpus server bin, its
// upstream at url, under hosts.
func corpusCellScenario(t *testing.T, name, bin, url string, hosts []string) *scenario.Scenario {
	t.Helper()
	f, ok := corpusFaults[name]
	if !ok {
		t.Fatalf("no scenario %q", name)
	}
	when := ""
	if f.when != "" {
		when = fmt.Sprintf("\n    when: '%s'", f.when)
	}
	probe := ""
	if f.probe {
		probe = `
  - name: orders in the upstream
    probe:
      http: '{{ target "orders" }}/orders?sku=A-1'
      expr: len(body)`
	}
	// The servers give up on the upstream after 1.5 s; the call waits
	// longer, so their verdict is what the call gets.
	timeout := 5 * time.Second
	if filepath.Base(bin) == "hanging" {
		timeout = corpusCallTimeout // it never answers: no need to wait long
	}
	src := fmt.Sprintf(`name: %s
server:
  command: [%q]
  env: {UPSTREAM_URL: '{{ upstream "orders" }}'}
upstreams:
  - {name: orders, protocol: http, target: %q}
rules:
  - name: %s
    upstream: orders%s
    fault: %s
agent:
  personas: [diligent]
  hosts: [%s]
  budget: 3
  call_timeout: %s
steps:
  - tool: create_order
    args: {sku: A-1, qty: 1}
followups:
  list_orders: {sku: A-1}
side_effects:
  - name: order written
    upstream: orders
    match: '%s'%s
`, name, bin, url, name, when, f.fault, joinHosts(hosts), timeout, f.matcher, probe)
	sc, err := scenario.Parse(name+".yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func joinHosts(hosts []string) string {
	out := ""
	for i, h := range hosts {
		if i > 0 {
			out += ", "
		}
		out += h
	}
	return out
}

// runCorpusCell runs one server under one scenario, against an order
// service of its own, and returns the runs (one per host).
func runCorpusCell(t *testing.T, bin, name string, hosts []string) []report.RunReport {
	t.Helper()
	url, _ := corpusUpstreamURL(t)
	sc := corpusCellScenario(t, name, bin, url, hosts)
	// One cell at a time: the runs share the upstream, and its probe
	// counts the difference it sees before and after a run.
	rep, err := Run(context.Background(), []*scenario.Scenario{sc}, RunOptions{Seed: 1, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if r.Error != "" {
			t.Fatalf("%s under %s: %s", name, r.Host, r.Error)
		}
	}
	return rep.Runs
}

// findingEvidence are a run's distinct finding IDs with their evidence.
func findingEvidence(r report.RunReport) map[string]string {
	out := map[string]string{}
	for _, f := range r.Findings {
		if _, ok := out[f.ID]; !ok {
			out[f.ID] = f.Evidence
		}
	}
	return out
}
