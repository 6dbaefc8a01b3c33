package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpchaos/mcpchaos/api"
)

// routeStep is one request of TestRoutes.
type routeStep struct {
	method, route, path, body string
	want                      int
	// fault: the response is a fault and must carry expiry and hits.
	fault bool
}

const runScenario = `name: careful / unreachable
server:
  command: ["{{ mcpchaos }}", "demo-server", "--variant", "careful"]
  env:
    CARRIER_URL: '{{ upstream "carrier" }}'
upstreams:
  - name: carrier
    protocol: http
    target: builtin:carrier
rules:
  - name: carrier down
    upstream: carrier
    fault: {kind: unreachable, mode: refuse}
agent:
  personas: [diligent]
  hosts: [raw]
  budget: 4
steps:
  - tool: create_shipment
    args: {order_id: A-1001, address: "1 Main St"}
`

// routeSteps exercise every route, in an order where each finds what it
// needs.
var routeSteps = []routeStep{
	{"GET", "/healthz", "/healthz", "", 200, false},
	{"GET", "/metrics", "/metrics", "", 200, false},
	{"GET", "/openapi.json", "/openapi.json", "", 200, false},
	{"POST", "/v1/upstreams", "/v1/upstreams", `{"name":"carrier","protocol":"http","target":"http://127.0.0.1:9"}`, 201, false},
	{"GET", "/v1/upstreams", "/v1/upstreams", "", 200, false},
	{"GET", "/v1/upstreams/{name}", "/v1/upstreams/carrier", "", 200, false},
	{"PUT", "/v1/upstreams/{name}", "/v1/upstreams/carrier", `{"protocol":"http","target":"http://127.0.0.1:19"}`, 200, false},
	{"PATCH", "/v1/upstreams/{name}", "/v1/upstreams/carrier", `{"target":"http://127.0.0.1:9"}`, 200, false},
	{"POST", "/v1/upstreams/{name}/faults", "/v1/upstreams/carrier/faults", `{"name":"lost","fault":{"kind":"response_lost"}}`, 201, true},
	{"GET", "/v1/upstreams/{name}/faults", "/v1/upstreams/carrier/faults", "", 200, false},
	{"GET", "/v1/upstreams/{name}/faults/{fault}", "/v1/upstreams/carrier/faults/lost", "", 200, true},
	{"PUT", "/v1/upstreams/{name}/faults/{fault}", "/v1/upstreams/carrier/faults/lost", `{"fault":{"kind":"http_error","status":503}}`, 200, true},
	{"PATCH", "/v1/upstreams/{name}/faults/{fault}", "/v1/upstreams/carrier/faults/lost", `{"probability":0.5}`, 200, true},
	{"POST", "/v1/upstreams/{name}/faults/{fault}/extend", "/v1/upstreams/carrier/faults/lost/extend", `{"ttl":"10m"}`, 200, true},
	{"POST", "/v1/upstreams/{name}/faults/{fault}/reset", "/v1/upstreams/carrier/faults/lost/reset", "", 200, true},
	{"DELETE", "/v1/upstreams/{name}/faults/{fault}", "/v1/upstreams/carrier/faults/lost", "", 204, false},
	{"POST", "/v1/faults", "/v1/faults", `{"name":"slow posts","upstream":"carrier","when":"method == \"POST\"","fault":{"kind":"latency","delay":"10ms"},"ttl":"1m"}`, 201, true},
	{"GET", "/v1/faults", "/v1/faults", "", 200, false},
	{"GET", "/v1/faults/{name}", "/v1/faults/slow%20posts", "", 200, true},
	{"PUT", "/v1/faults/{name}", "/v1/faults/slow%20posts", `{"upstream":"carrier","fault":{"kind":"latency","delay":"20ms"}}`, 200, true},
	{"PATCH", "/v1/faults/{name}", "/v1/faults/slow%20posts", `{"enabled":false}`, 200, true},
	{"POST", "/v1/faults/{name}/extend", "/v1/faults/slow%20posts/extend", `{"ttl":"5m"}`, 200, true},
	{"POST", "/v1/faults/{name}/reset", "/v1/faults/slow%20posts/reset", "", 200, true},
	{"PUT", "/v1/faults", "/v1/faults", `{"faults":[{"name":"slow posts","upstream":"carrier","fault":{"kind":"latency","delay":"20ms"}},{"name":"everywhere","fault":{"kind":"reset"}}]}`, 200, false},
	{"DELETE", "/v1/faults/{name}", "/v1/faults/slow%20posts", "", 204, false},
	{"POST", "/v1/upstreams/{name}/disable", "/v1/upstreams/carrier/disable", "", 200, false},
	{"POST", "/v1/upstreams/{name}/enable", "/v1/upstreams/carrier/enable", "", 200, false},
	{"POST", "/v1/halt", "/v1/halt", "", 200, false},
	{"GET", "/v1/events", "/v1/events?follow=false&replay=50", "", 200, false},
	{"POST", "/v1/runs", "/v1/runs?name=careful.yaml", runScenario, 202, false},
	{"GET", "/v1/runs", "/v1/runs", "", 200, false},
	{"GET", "/v1/runs/{id}", "/v1/runs/run-1?wait=1m", "", 200, false},
	{"DELETE", "/v1/runs/{id}", "/v1/runs/run-1", "", 204, false},
	{"GET", "/v1/audit", "/v1/audit", "", 200, false},
	{"GET", "/v1/kinds", "/v1/kinds", "", 200, false},
	{"GET", "/v1/examples", "/v1/examples", "", 200, false},
	{"GET", "/v1/examples/{name}", "/v1/examples/careless-timeout", "", 200, false},
	{"POST", "/v1/live/reports", "/v1/live/reports", `{"reports":[{"type":"session_open","session":{"id":"wrap-1-1","front":"wrap","transport":"stdio","start":"2026-01-01T00:00:00Z","calls":0}}]}`, 200, false},
	{"GET", "/v1/live/sessions", "/v1/live/sessions", "", 200, false},
	{"GET", "/v1/live/calls", "/v1/live/calls?session=wrap-1-1", "", 200, false},
	{"GET", "/v1/live/report", "/v1/live/report?since=1h&format=json", "", 200, false},
	{"GET", "/", "/", "", 200, false},
	{"GET", "/dashboard/*", "/dashboard/app.js", "", 200, false},
	{"DELETE", "/v1/upstreams/{name}", "/v1/upstreams/carrier", "", 200, false},
}

// TestRoutes sends a request to every route, in process and over a
// loopback port, and checks the status (and that fault responses carry
// their expiry and hit count).
func TestRoutes(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			f := setup(t, tr, nil, api.Options{})
			for _, st := range routeSteps {
				ct := ""
				if st.body != "" {
					ct = "application/json"
					if strings.HasPrefix(st.route, "/v1/runs") {
						ct = "application/yaml"
					}
				}
				status, body := f.call(t, st.method, st.path, ct, st.body)
				if status != st.want {
					t.Fatalf("%s %s: %d, want %d: %s", st.method, st.path, status, st.want, body)
				}
				if st.fault {
					var m map[string]any
					if err := json.Unmarshal([]byte(body), &m); err != nil {
						t.Fatalf("%s %s: %v", st.method, st.path, err)
					}
					for _, k := range []string{"expires_at", "expires_in_seconds", "hits", "state", "ttl"} {
						if _, ok := m[k]; !ok {
							t.Errorf("%s %s: no %q in %s", st.method, st.path, k, body)
						}
					}
				}
			}
			run, err := f.client.Runs(t.Context())
			if err != nil || len(run) != 0 {
				t.Errorf("runs after forgetting run-1: %v, %v", run, err)
			}
		})
	}
}

// TestRoutesCovered checks that TestRoutes visits every route the router
// has.
func TestRoutesCovered(t *testing.T) {
	f := setup(t, "httptest", nil, api.Options{})
	tested := map[string]bool{}
	for _, st := range routeSteps {
		tested[st.method+" "+st.route] = true
	}
	for _, rt := range walkRoutes(t, f.srv) {
		if !tested[rt] {
			t.Errorf("route %s is not exercised by TestRoutes", rt)
		}
	}
}

// walkRoutes lists "METHOD /pattern" for every route of the server.
func walkRoutes(t *testing.T, srv *api.Server) []string {
	t.Helper()
	var out []string
	err := chi.Walk(srv.Handler().(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if len(route) > 1 {
			route = strings.TrimSuffix(route, "/")
		}
		out = append(out, method+" "+route)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
