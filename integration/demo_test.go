package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
)

// lostReplyScenario is examples/demo/*-response_lost.yaml rewritten for
// containers: the server is reached by URL, the proxy listens on a fixed
// port that the server's CARRIER_URL names, and the target is the carrier
// container. One cell (diligent, swallow), since the port is fixed. The
// order id is unique, so that the carrier's memory of earlier runs (its
// idempotency keys) does not change the outcome. Its variables are
// lostReplyVars's.
const lostReplyScenario = `
name: '{{ var "NAME" }}'
server:
  url: {{ var "SERVER" }}
upstreams:
  - name: carrier
    protocol: http
    listen: 0.0.0.0:{{ var "PORT" }}
    target: {{ var "CARRIER" }}
rules:
  - name: response_lost
    upstream: carrier
    when: method == "POST" && path == "/shipments"
    fault: {kind: response_lost, mode: hang}
agent:
  personas: [diligent]
  hosts: [swallow]
  budget: 6
  call_timeout: 5s
  write_tools: [create_shipment]
steps:
  - tool: create_shipment
    args: {order_id: {{ var "ORDER" }}, address: "1 Main St"}
followups:
  find_shipments: {order_id: {{ var "ORDER" }}}
side_effects:
  - name: shipment created
    upstream: carrier
    match: method == "POST" && path == "/shipments" && upstream_status == 201
    intended: 1
expect:
  fail_on: error
`

// lostReplyVars are lostReplyScenario's variables.
func lostReplyVars(name, serverURL string, proxyPort int, carrierURL, orderID string) Vars {
	return Vars{"NAME": name, "SERVER": serverURL, "PORT": fmt.Sprint(proxyPort), "CARRIER": carrierURL, "ORDER": orderID}
}

// orderID is an order id no other test (or earlier -count) uses.
func orderID(e *testEnv, what string) string {
	return fmt.Sprintf("%s-%s-%s", what, e.runID, randomHex(3))
}

// runContext bounds one scenario run in a test.
func runContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestDemoFindingsInContainers reproduces the demo's verdicts with every
// part in its own container: the server's carrier requests go through
// mcpchaos by container name, and the run is posted to the API.
func TestDemoFindingsInContainers(t *testing.T) {
	e := need(t)
	s := e.demoStack(t)

	t.Run("careless", func(t *testing.T) {
		t.Parallel()
		vars := lostReplyVars("careless / response_lost", fmt.Sprintf("http://%s:%d/mcp", e.name("careless"), serverPort),
			carelessProxyPort, e.carrierURL(), orderID(e, "careless"))
		rep, err := s.chaos.RunScenario(runContext(t), lostReplyScenario, vars)
		if err != nil {
			t.Fatal(err)
		}
		run := onlyRun(t, rep)
		// The careless server answers a hung carrier with a JSON-RPC
		// error, which the swallow host hides: the agent retries blind
		// until its budget is spent, and every retry commits again.
		if !hasFinding(run, "MC001") {
			t.Errorf("no MC001 (protocol error for an upstream failure): %v", findingIDs(run))
		}
		if run.Converged || run.StopReason != "budget spent" {
			t.Errorf("converged=%v stop=%q, want the budget spent", run.Converged, run.StopReason)
		}
		if tot := run.SideEffectsTotal(); tot.Committed <= 1 || tot.Intended != 1 {
			t.Errorf("side effects %+v, want more than one committed for one intended", tot)
		}
		if !hasFinding(run, "MC003") {
			t.Errorf("no MC003 (duplicated side effect): %v", findingIDs(run))
		}
	})
	t.Run("careful", func(t *testing.T) {
		t.Parallel()
		vars := lostReplyVars("careful / response_lost", fmt.Sprintf("http://%s:%d/mcp", e.name("careful"), serverPort),
			carefulProxyPort, e.carrierURL(), orderID(e, "careful"))
		rep, err := s.chaos.RunScenario(runContext(t), lostReplyScenario, vars)
		if err != nil {
			t.Fatal(err)
		}
		run := onlyRun(t, rep)
		if !run.Converged || len(run.Calls) > 2 {
			t.Errorf("converged=%v after %d call(s), want converged in at most 2", run.Converged, len(run.Calls))
		}
		AssertSideEffects(t, rep)
		AssertNoFindings(t, rep, judge.SeverityError)
	})
}

// onlyRun returns the report's single run.
func onlyRun(t *testing.T, rep report.Report) report.RunReport {
	t.Helper()
	if len(rep.Runs) != 1 {
		t.Fatalf("%d runs in the report, want 1", len(rep.Runs))
	}
	if rep.Runs[0].Error != "" {
		t.Fatalf("the run failed: %s", rep.Runs[0].Error)
	}
	return rep.Runs[0]
}

func findingIDs(r report.RunReport) []string {
	var ids []string
	for _, f := range r.Findings {
		ids = append(ids, f.ID)
	}
	return ids
}

func hasFinding(r report.RunReport, id string) bool { return slices.Contains(findingIDs(r), id) }
