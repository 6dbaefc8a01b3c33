package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/api"
)

// errorCase is a request that must fail with status and, when set, the
// error's code, field, line and column.
type errorCase struct {
	name         string
	method, path string
	ct, body     string
	header       []string
	status       int
	code, field  string
	line, column int
}

func errorCases() []errorCase {
	big := `{"name":"x","fault":{"kind":"latency","pad":"` + strings.Repeat("a", 2<<20) + `"}}`
	return []errorCase{
		{name: "probability out of range", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"p","fault":{"kind":"latency"},"probability":2}`, status: 400, code: api.CodeInvalidField, field: "probability"},
		{name: "bad expression", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"e","fault":{"kind":"latency"},"when":"method == \"POST\" &&& x"}`, status: 400, code: api.CodeInvalidExpression, field: "when", line: 1},
		{name: "unknown identifier", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"e","fault":{"kind":"latency"},"when":"methd == \"POST\""}`, status: 400, code: api.CodeInvalidExpression, field: "when", line: 1, column: 1},
		{name: "bad fault parameter", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"d","fault":{"kind":"latency","delay":"soon"}}`, status: 400, code: api.CodeInvalidField, field: "fault.delay"},
		{name: "unknown fault kind", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"k","fault":{"kind":"gremlins"}}`, status: 400, code: api.CodeInvalidField, field: "fault.kind"},
		{name: "ttl over max", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"t","fault":{"kind":"latency"},"ttl":"48h"}`, status: 400, code: api.CodeInvalidField, field: "ttl"},
		{name: "malformed JSON", method: "POST", path: "/v1/faults", ct: "application/json",
			body: "{\n  \"name\": \"m\",\n  \"fault\": {kind: 1}\n}", status: 400, code: api.CodeInvalidJSON, line: 3, column: 13},
		{name: "unknown field", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"u","fault":{"kind":"latency"},"probabilty":0.5}`, status: 400, code: api.CodeInvalidField, field: "probabilty"},
		{name: "wrong type", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"w","fault":{"kind":"latency"},"limit":"many"}`, status: 400, code: api.CodeInvalidField, field: "limit"},
		{name: "fault names no upstream", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"n","upstream":"nope","fault":{"kind":"latency"}}`, status: 400, code: api.CodeInvalidField, field: "upstream"},
		{name: "bad upstream spec", method: "POST", path: "/v1/upstreams", ct: "application/json",
			body: `{"name":"x","protocol":"udp","target":"127.0.0.1:9"}`, status: 400, code: api.CodeInvalidField, field: "protocol"},
		{name: "bad scenario", method: "POST", path: "/v1/runs?name=s.yaml", ct: "application/yaml",
			body: "name: s\nserver: {command: [x]}\nagent:\n  budget: lots\n", status: 400, code: api.CodeInvalidScenario, field: "agent.budget", line: 4},
		{name: "unknown persona", method: "POST", path: "/v1/runs?persona=reckless", ct: "application/yaml",
			body: runScenario, status: 400, code: api.CodeInvalidField, field: "persona"},
		{name: "empty body", method: "POST", path: "/v1/faults", ct: "application/json", status: 400, code: api.CodeInvalidJSON},
		{name: "trailing data", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"t","fault":{"kind":"latency"}} {}`, status: 400, code: api.CodeInvalidJSON},
		{name: "bad replay", method: "GET", path: "/v1/events?replay=-1", status: 400, code: api.CodeInvalidField, field: "replay"},
		{name: "unknown upstream", method: "GET", path: "/v1/upstreams/nope", status: 404, code: api.CodeNotFound},
		{name: "unknown fault", method: "DELETE", path: "/v1/faults/nope", status: 404, code: api.CodeNotFound},
		{name: "fault of unknown upstream", method: "GET", path: "/v1/upstreams/nope/faults", status: 404, code: api.CodeNotFound},
		{name: "fault of another upstream", method: "GET", path: "/v1/upstreams/db/faults/slow", status: 404, code: api.CodeNotFound},
		{name: "unknown run", method: "GET", path: "/v1/runs/run-99", status: 404, code: api.CodeNotFound},
		{name: "unknown route", method: "GET", path: "/v2/nothing", status: 404, code: api.CodeNotFound},
		{name: "fault name taken", method: "POST", path: "/v1/faults", ct: "application/json",
			body: `{"name":"slow","fault":{"kind":"latency"}}`, status: 409, code: api.CodeConflict, field: "name"},
		{name: "upstream name taken", method: "POST", path: "/v1/upstreams", ct: "application/json",
			body: `{"name":"carrier","protocol":"http","target":"127.0.0.1:9"}`, status: 409, code: api.CodeConflict},
		{name: "duplicate names in a set", method: "PUT", path: "/v1/faults", ct: "application/json",
			body: `{"faults":[{"name":"a","fault":{"kind":"reset"}},{"name":"a","fault":{"kind":"reset"}}]}`, status: 409, code: api.CodeConflict},
		{name: "body too large", method: "POST", path: "/v1/faults", ct: "application/json", body: big, status: 413, code: api.CodeBodyTooLarge},
		{name: "scenario too large", method: "POST", path: "/v1/runs", ct: "application/yaml", body: big, status: 413, code: api.CodeBodyTooLarge},
		{name: "form post", method: "POST", path: "/v1/faults", ct: "application/x-www-form-urlencoded",
			body: `name=x`, status: 415, code: api.CodeUnsupportedMedia},
		{name: "text/plain scenario", method: "POST", path: "/v1/runs", ct: "text/plain", body: runScenario, status: 415, code: api.CodeUnsupportedMedia},
		{name: "method not allowed", method: "DELETE", path: "/v1/halt", status: 405, code: api.CodeMethodNotAllowed},
		{name: "cross-origin", method: "POST", path: "/v1/halt", header: []string{"Origin", "https://evil.example"}, status: 403, code: api.CodeForbidden},
		{name: "rebinding host", method: "GET", path: "/v1/faults", header: []string{"Host", "evil.example:7777"}, status: 403, code: api.CodeForbidden},
	}
}

// TestErrorCodes checks every error status through both transports, with
// the field and position that locate the mistake.
func TestErrorCodes(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			f := setup(t, tr, nil, api.Options{})
			seed(t, f)
			for _, c := range errorCases() {
				status, body := f.call(t, c.method, c.path, c.ct, c.body, c.header...)
				checkError(t, c, status, body)
			}
		})
	}
}

// seed creates the upstreams "carrier" (http) and "db" (tcp) and the
// fault "slow" on carrier.
func seed(t *testing.T, f *fixture) {
	t.Helper()
	ctx := t.Context()
	if _, err := f.client.AddUpstream(ctx, api.UpstreamRequest{Name: "carrier", Protocol: "http", Target: "127.0.0.1:9"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.client.AddUpstream(ctx, api.UpstreamRequest{Name: "db", Protocol: "tcp", Target: "127.0.0.1:9"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.client.AddFault(ctx, api.FaultRequest{Name: "slow", Upstream: "carrier",
		Fault: api.FaultSpec{Kind: "latency", Params: map[string]any{"delay": "10ms"}}}); err != nil {
		t.Fatal(err)
	}
}

func checkError(t *testing.T, c errorCase, status int, body string) {
	t.Helper()
	if status != c.status {
		t.Errorf("%s: status %d, want %d: %.300s", c.name, status, c.status, body)
		return
	}
	var eb struct {
		Error *api.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &eb); err != nil || eb.Error == nil {
		t.Errorf("%s: body is not an error envelope: %.300s", c.name, body)
		return
	}
	e := eb.Error
	if e.Code != c.code || e.Message == "" {
		t.Errorf("%s: code %q message %q, want code %q", c.name, e.Code, e.Message, c.code)
	}
	if c.field != "" && e.Field != c.field {
		t.Errorf("%s: field %q, want %q (%s)", c.name, e.Field, c.field, e.Message)
	}
	if c.line != 0 && e.Line != c.line {
		t.Errorf("%s: line %d, want %d (%s)", c.name, e.Line, c.line, e.Message)
	}
	if c.column != 0 && e.Column != c.column {
		t.Errorf("%s: column %d, want %d (%s)", c.name, e.Column, c.column, e.Message)
	}
}
