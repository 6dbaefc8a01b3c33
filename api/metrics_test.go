package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/api"
)

// scraped is a parsed /metrics page.
type scraped map[string]*dto.MetricFamily

func scrape(t *testing.T, f *fixture) scraped {
	t.Helper()
	status, body := f.call(t, http.MethodGet, "/metrics", "", "")
	if status != 200 {
		t.Fatalf("GET /metrics: %d %s", status, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewBufferString(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// value sums the samples of name whose labels include labels.
func (s scraped) value(name string, labels map[string]string) float64 {
	fam := s[name]
	if fam == nil {
		return 0
	}
	total := 0.0
	for _, m := range fam.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range labels {
			match = match && have[k] == v
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Histogram != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total
}

// carelessUnreachable is examples/demo/careless-unreachable.yaml: the
// careless server turns a refused connection into a JSON-RPC error that
// leaks the carrier's URL, then succeeds on the retry.
const carelessUnreachable = `name: careless / unreachable
server:
  command: ["{{ mcpchaos }}", "demo-server", "--variant", "careless"]
  env:
    CARRIER_URL: '{{ upstream "carrier" }}'
upstreams:
  - name: carrier
    protocol: http
    target: builtin:carrier
rules:
  - name: unreachable
    upstream: carrier
    when: tool == "create_shipment" && attempt == 1
    fault: {kind: unreachable, mode: refuse}
agent:
  personas: [diligent]
  hosts: [swallow, generic, raw]
  budget: 6
  call_timeout: 5s
  write_tools: [create_shipment]
steps:
  - tool: create_shipment
    args: {order_id: A-1001, address: "1 Main St"}
followups:
  find_shipments: {order_id: A-1001}
side_effects:
  - name: shipment created
    upstream: carrier
    match: method == "POST" && path == "/shipments" && upstream_status == 201
    intended: 1
`

// TestRunMetrics runs a scenario through POST /v1/runs and scrapes
// /metrics: the verdict counters count each call by the channel the
// server answered in and each finding with its call's channel, exactly
// as the report has them.
func TestRunMetrics(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{})
	ctx := t.Context()
	run, err := f.client.StartRun(ctx, []byte(carelessUnreachable), api.RunParams{Name: "careless-unreachable.yaml", Hosts: []string{"raw"}})
	if err != nil {
		t.Fatal(err)
	}
	run, err = f.client.WaitRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != api.RunDone || run.Summary == nil || run.Summary.Runs != 1 || len(run.Report) == 0 {
		t.Fatalf("run: %+v", run)
	}
	var rep report.Report
	if err := json.Unmarshal(run.Report, &rep); err != nil {
		t.Fatal(err)
	}
	m := scrape(t, f)

	// Pinned: on a refused connection the careless server answers with a
	// protocol error (MC001) leaking the carrier's address (MC007); the
	// diligent agent retries and the call succeeds.
	pinned := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"mcpchaos_tool_verdicts_total", map[string]string{"tool": "create_shipment", "channel": "protocol_error"}, 1},
		{"mcpchaos_tool_verdicts_total", map[string]string{"tool": "create_shipment", "channel": "success"}, 1},
		{"mcpchaos_tool_findings_total", map[string]string{"tool": "create_shipment", "channel": "protocol_error", "finding": "MC001", "severity": "error"}, 1},
		{"mcpchaos_tool_findings_total", map[string]string{"tool": "create_shipment", "channel": "protocol_error", "finding": "MC007", "severity": "error"}, 1},
		{"mcpchaos_tool_call_duration_seconds", map[string]string{"tool": "create_shipment"}, 2},
		{"mcpchaos_runs_total", map[string]string{"status": "done"}, 1},
	}
	for _, p := range pinned {
		if got := m.value(p.name, p.labels); got != p.want {
			t.Errorf("%s%v = %v, want %v", p.name, p.labels, got, p.want)
		}
	}
	// And in general: the counters are the report's.
	calls, findings := 0, 0
	for _, r := range rep.Runs {
		calls += len(r.Calls)
		findings += len(r.Findings)
	}
	if got := m.value("mcpchaos_tool_verdicts_total", nil); got != float64(calls) {
		t.Errorf("verdicts total %v, report has %d calls", got, calls)
	}
	if got := m.value("mcpchaos_tool_findings_total", nil); got != float64(findings) {
		t.Errorf("findings total %v, report has %d findings", got, findings)
	}
}
