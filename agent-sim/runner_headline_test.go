package agentsim

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"go.uber.org/goleak"
)

// headlineScenario: create_order's upstream reply is lost (the order is
// committed, the server's HTTP client sees its connection reset), under
// the swallow host, for the diligent persona. The order is counted twice:
// by a matcher over the fault layer's exchanges and by a probe that asks
// the upstream itself.
func headlineScenario(t *testing.T, bin, upstream string) *scenario.Scenario {
	t.Helper()
	src := fmt.Sprintf(`name: lost reply on create_order
server:
  command: [%q]
  env: {UPSTREAM_URL: '{{ upstream "orders" }}'}
upstreams:
  - {name: orders, protocol: http, target: %q}
rules:
  - name: lose the create reply
    upstream: orders
    when: method == "POST" && path == "/orders"
    fault: {kind: response_lost, mode: reset}
agent:
  personas: [diligent]
  hosts: [swallow]
  budget: 6
steps:
  - tool: create_order
    args: {sku: A-1, qty: 1}
followups:
  list_orders: {sku: A-1}
side_effects:
  - name: order placed
    upstream: orders
    match: method == "POST" && path == "/orders" && upstream_status >= 200 && upstream_status < 300
  - name: orders in the upstream
    probe:
      http: '{{ target "orders" }}/orders?sku=A-1'
      expr: len(body)
`, bin, upstream)
	sc, err := scenario.Parse("headline.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestRunHeadline(t *testing.T) {
	bins := buildCorpus(t)
	for _, tc := range []struct {
		server    string
		converged bool
		maxCalls  int
		committed func(int) bool
	}{
		// A careless server turns the upstream failure into a JSON-RPC
		// error; swallowed, it leaves the model nothing but to retry, and
		// every retry commits another order.
		{"rpcerror-gosdk", false, 6, func(n int) bool { return n > 1 }},
		// A careful server says the outcome is unknown and names
		// list_orders: the agent checks, sees the order, and stops.
		{"careful-gosdk", true, 2, func(n int) bool { return n == 1 }},
	} {
		t.Run(tc.server, func(t *testing.T) {
			url, up := corpusUpstreamURL(t)
			// The upstream is closed by t.Cleanup, after this check.
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			rep, err := Run(context.Background(), []*scenario.Scenario{headlineScenario(t, bins[tc.server], url)}, RunOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Runs[0]
			if r.Error != "" {
				t.Fatal(r.Error)
			}
			for _, c := range r.Calls {
				t.Logf("call %d %s attempt %d: %s %d %q -> %s (%s) injections %v committed %d",
					c.N, c.Tool, c.Attempt, c.Channel, c.Code, c.Text, c.Decision.Action, c.Decision.Reason, c.Injections, c.Committed)
			}
			if r.Converged != tc.converged || len(r.Calls) > tc.maxCalls || (!tc.converged && len(r.Calls) != r.Budget) {
				t.Errorf("converged %v after %d calls (%s)", r.Converged, len(r.Calls), r.StopReason)
			}
			if len(r.SideEffects) != 2 {
				t.Fatalf("side effects %+v", r.SideEffects)
			}
			matched, probed := r.SideEffects[0], r.SideEffects[1]
			if !tc.committed(matched.Committed) || matched.Committed != up.committed() || probed.Committed != up.committed() || probed.Error != "" {
				t.Errorf("committed: matcher %d, probe %d (%s), upstream %d", matched.Committed, probed.Committed, probed.Error, up.committed())
			}
			for _, f := range r.Findings {
				t.Logf("finding %s %s: %s", f.ID, f.Severity, f.Evidence)
			}
		})
	}
}
