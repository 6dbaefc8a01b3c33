package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// fuzzRoutes are the routes that read a body. Runs are fuzzed with an
// unknown persona, so that a body that parses as a scenario is refused
// before anything starts: the fuzzer must never launch commands.
var fuzzRoutes = []struct{ method, path, ct string }{
	{"POST", "/v1/upstreams", "application/json"},
	{"PUT", "/v1/upstreams/carrier", "application/json"},
	{"PATCH", "/v1/upstreams/carrier", "application/json"},
	{"POST", "/v1/faults", "application/json"},
	{"PUT", "/v1/faults", "application/json"},
	{"PUT", "/v1/faults/slow", "application/json"},
	{"PATCH", "/v1/faults/slow", "application/json"},
	{"POST", "/v1/upstreams/carrier/faults", "application/json"},
	{"PATCH", "/v1/upstreams/carrier/faults/slow", "application/json"},
	{"POST", "/v1/runs?persona=fuzz-never-a-persona", "application/yaml"},
	{"POST", "/v1/live/reports", "application/json"},
}

// FuzzAPIBodies sends arbitrary bodies to every route that reads one: no
// input may yield a 5xx or a panic.
func FuzzAPIBodies(f *testing.F) {
	for _, st := range routeSteps {
		if st.body == "" {
			continue
		}
		for i := range fuzzRoutes {
			f.Add(uint8(i), []byte(st.body))
		}
	}
	for _, c := range errorCases() {
		if c.body != "" && len(c.body) < 4096 {
			f.Add(uint8(3), []byte(c.body))
		}
	}
	f.Add(uint8(9), []byte(runScenario))
	f.Add(uint8(4), []byte(`{"faults":[{"name":"a","fault":{"kind":"latency","delay":"1ms"},"ttl":"1s"}]}`))
	f.Add(uint8(6), []byte(`{"fault":null,"ttl":null,"enabled":null}`))
	// Live reports: a session and a call, a tamper that is none, a name
	// no report may carry, nesting past the bound.
	f.Add(uint8(10), []byte(`{"reports":[{"type":"session_open","session":{"id":"s","front":"wrap"}},`+
		`{"type":"call_end","call":{"session":"s","seq":1,"tool":"t","channel":"success","tamper":{"rule":"r","mode":"drop"}}}]}`))
	f.Add(uint8(10), []byte(`{"reports":[{"type":"call_end","call":{"session":"s","seq":1,"tool":"t","channel":"success","tamper":{"mode":"explode"}}}]}`))
	f.Add(uint8(10), []byte(`{"reports":[{"type":"call_start","call":{"session":"s","seq":1,"tool":"a\u0000b"}}]}`))
	f.Add(uint8(10), []byte(`{"reports":[{"type":"call_start","call":{"session":"s","seq":1,"tool":"t","arguments":{"a":`+
		strings.Repeat("[", 100)+strings.Repeat("]", 100)+`}}}]}`))
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		r := fuzzRoutes[int(route)%len(fuzzRoutes)]
		reg := inject.New(inject.Options{})
		defer reg.Close()
		srv := api.New(reg, api.Options{MaxBodyBytes: 64 << 10})
		defer srv.Close()
		if _, err := reg.AddUpstream(inject.UpstreamSpec{Name: "carrier", Protocol: "http", Target: "127.0.0.1:9"}); err != nil {
			t.Fatal(err)
		}
		if _, err := reg.PutRule(fuzzRule()); err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(r.method, r.path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", r.ct)
		req.RemoteAddr = "127.0.0.1:1"
		req.Host = "127.0.0.1:7777"
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s with %q: %d %s", r.method, r.path, body, rec.Code, rec.Body)
		}
		if rec.Code == http.StatusAccepted {
			t.Fatalf("a run started: %s", rec.Body)
		}
	})
}

func fuzzRule() rules.Rule {
	return rules.Rule{Name: "slow", Upstream: "carrier", Fault: rules.FaultSpec{Kind: "latency", Params: map[string]any{"delay": "1ms"}}}
}
