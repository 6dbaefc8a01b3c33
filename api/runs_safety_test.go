package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/demo"
)

// TestRunsOffByDefault: a server that was not asked for runs refuses
// POST /v1/runs with 403 runs_disabled, says how to enable it, and tells
// the dashboard through /healthz.
func TestRunsOffByDefault(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			f := setup(t, tr, nil, api.Options{RunOptions: agentsim.RunOptions{
				Builtins: map[string]agentsim.Builtin{"carrier": demo.StartCarrier}}})
			status, body := f.call(t, "POST", "/v1/runs?name=careful.yaml", "application/yaml", runScenario)
			if status != http.StatusForbidden {
				t.Fatalf("POST /v1/runs: %d %s", status, body)
			}
			var eb struct{ Error api.Error }
			if err := json.Unmarshal([]byte(body), &eb); err != nil {
				t.Fatal(err)
			}
			if eb.Error.Code != api.CodeRunsDisabled || !strings.Contains(eb.Error.Message, "--runs") {
				t.Errorf("error %+v: want code %s and how to enable runs", eb.Error, api.CodeRunsDisabled)
			}
			if runs, err := f.client.Runs(t.Context()); err != nil || len(runs) != 0 {
				t.Errorf("runs after a refused start: %v, %v", runs, err)
			}
			h, err := f.client.Health(t.Context())
			if err != nil || h.Runs {
				t.Errorf("healthz: %+v, %v; want runs false", h, err)
			}
		})
	}
	f := setup(t, "httptest", nil, api.Options{})
	if h, err := f.client.Health(t.Context()); err != nil || !h.Runs {
		t.Errorf("healthz with runs enabled: %+v, %v", h, err)
	}
}

// TestRunTargetsAllowlist: with --allow, every address a scenario would
// dial is checked before the run starts, and a denial names the field.
func TestRunTargetsAllowlist(t *testing.T) {
	allow, err := api.ParseAllowlist([]string{"10.0.0.0/8", "db.staging:5432"})
	if err != nil {
		t.Fatal(err)
	}
	const server = "server:\n  command: [\"true\"]\n"
	const steps = "steps:\n  - tool: ping\n"
	tests := []struct {
		name, scenario, field string // field "" when allowed
	}{
		{"tcp target outside", server + "upstreams:\n  - {name: db, target: \"192.168.1.5:5432\"}\n" + steps, "upstreams[0].target"},
		{"http target outside", server + "upstreams:\n  - {name: ok, protocol: http, target: \"http://10.1.1.1:80\"}\n  - {name: c, protocol: http, target: \"http://example.com:80\"}\n" + steps, "upstreams[1].target"},
		{"server url outside", "server:\n  url: http://203.0.113.9:8080/mcp\n" + steps, "server.url"},
		{"server url default port", "server:\n  url: https://db.staging/mcp\n" + steps, "server.url"},
		{"server url around a proxy", "server:\n  url: 'http://evil.example/{{ upstream \"c\" }}'\nupstreams:\n  - {name: c, protocol: http, target: builtin:carrier}\n" + steps, "server.url"},
		{"probe outside", server + "upstreams:\n  - {name: db, target: \"db.staging:5432\"}\n" + steps +
			"side_effects:\n  - name: rows\n    probe:\n      http: http://192.168.1.9/count\n      expr: body.n\n", "side_effects[0].probe.http"},
		{"probe through target outside", server + "upstreams:\n  - {name: c, protocol: http, target: \"http://10.2.2.2:9000\"}\n" + steps +
			"side_effects:\n  - name: a\n    probe:\n      http: '{{ target \"c\" }}/n'\n      expr: body.n\n  - name: b\n    probe:\n      http: 'http://172.16.0.1:9000/n'\n      expr: body.n\n", "side_effects[1].probe.http"},
		{"all inside", "server:\n  url: '{{ upstream \"c\" }}/mcp'\nupstreams:\n  - {name: c, protocol: http, target: builtin:carrier}\n  - {name: db, target: \"db.staging:5432\"}\n" + steps +
			"side_effects:\n  - name: a\n    probe:\n      http: '{{ target \"c\" }}/n'\n      expr: body.n\n", ""},
	}
	f := setup(t, "loopback", nil, api.Options{Allow: allow})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := f.call(t, "POST", "/v1/runs?name=s.yaml", "application/yaml", "name: s\n"+tt.scenario)
			if tt.field == "" {
				if status != http.StatusAccepted {
					t.Fatalf("allowed scenario: %d %s", status, body)
				}
				return
			}
			var eb struct{ Error api.Error }
			if err := json.Unmarshal([]byte(body), &eb); err != nil {
				t.Fatalf("%d %s: %v", status, body, err)
			}
			if status != http.StatusBadRequest || eb.Error.Field != tt.field || !strings.Contains(eb.Error.Message, "allowlist") {
				t.Errorf("%d %+v, want 400 naming %s and the allowlist", status, eb.Error, tt.field)
			}
		})
	}
	if runs, err := f.client.Runs(t.Context()); err != nil || len(runs) != 1 {
		t.Errorf("want exactly the allowed run started: %v, %v", runs, err)
	}
}
