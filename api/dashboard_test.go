package api_test

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/examples"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestDashboardFiles: the page and its files are served without the
// token (the page asks for it), with a policy that forbids anything but
// this server; nothing else is, and the API behind stays closed.
func TestDashboardFiles(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			f := setup(t, tr, nil, api.Options{Token: testToken})
			cases := []struct {
				path, wantType string
				want           int
			}{
				{"/", "text/html", 200},
				{"/dashboard/app.js", "text/javascript", 200},
				{"/dashboard/api.js", "text/javascript", 200},
				{"/dashboard/stream.js", "text/javascript", 200},
				{"/dashboard/dom.js", "text/javascript", 200},
				{"/dashboard/live.js", "text/javascript", 200},
				{"/dashboard/app.css", "text/css", 200},
				{"/dashboard/icon.svg", "image/svg+xml", 200},
				// No listing, no second copy of the page, nothing else.
				{"/dashboard/", "application/json", 404},
				{"/dashboard/index.html", "application/json", 404},
				{"/dashboard/nope.js", "application/json", 404},
				{"/dashboard/%2e%2e/openapi.json", "application/json", 404},
				// A path that passes as the dashboard's is routed as one.
				{"/dashboard/../v1/faults", "application/json", 404},
				// The API still wants the token.
				{"/v1/kinds", "application/json", 401},
				{"/v1/examples", "application/json", 401},
			}
			for _, c := range cases {
				req, err := http.NewRequest("GET", f.base+c.path, nil)
				if err != nil {
					t.Fatal(err)
				}
				resp, err := f.hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != c.want || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.wantType) {
					t.Errorf("GET %s: %d %s, want %d %s", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), c.want, c.wantType)
				}
				if c.want == 200 {
					csp := resp.Header.Get("Content-Security-Policy")
					if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") {
						t.Errorf("GET %s: Content-Security-Policy = %q", c.path, csp)
					}
				}
			}
			// A page of another site may not load it through the browser.
			if status, _ := f.call(t, "GET", "/", "", "", "Origin", "http://evil.example"); status != 403 {
				t.Errorf("GET / with a foreign Origin: %d, want 403", status)
			}
		})
	}
	// Without a token, the loopback Host check applies to the page too.
	f := setup(t, "httptest", nil, api.Options{})
	if status, _ := f.call(t, "GET", "/", "", "", "Host", "rebound.example:7777"); status != 403 {
		t.Errorf("GET / with a non-loopback Host and no token: %d, want 403", status)
	}
	if status, _ := f.call(t, "GET", "/", "", ""); status != 200 {
		t.Errorf("GET / on loopback without a token: %d", status)
	}
}

// TestDashboardSelfContained reads the embedded files the way the
// browser will: every URL they name is one of them, on this server.
func TestDashboardSelfContained(t *testing.T) {
	f := setup(t, "httptest", nil, api.Options{})
	refs := regexp.MustCompile(`(?:src|href)="([^"#]+)"|from "([^"]+)"|url\(([^)]+)\)|@import`)
	seen := map[string]bool{}
	queue := []string{"/"}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		status, body := f.call(t, "GET", p, "", "")
		if status != 200 {
			t.Errorf("GET %s: %d", p, status)
			continue
		}
		for _, m := range refs.FindAllStringSubmatch(body, -1) {
			ref := m[1] + m[2] + m[3]
			switch {
			case m[0] == "@import" || m[3] != "":
				t.Errorf("%s: %s: style sheets load nothing", p, m[0])
			case strings.HasPrefix(ref, "./"):
				queue = append(queue, "/dashboard/"+strings.TrimPrefix(ref, "./"))
			case strings.HasPrefix(ref, "/dashboard/"):
				queue = append(queue, ref)
			default:
				t.Errorf("%s refers to %q, which is not a file of the dashboard", p, ref)
			}
		}
	}
	for _, want := range []string{"/dashboard/app.js", "/dashboard/api.js", "/dashboard/stream.js", "/dashboard/dom.js", "/dashboard/live.js", "/dashboard/app.css"} {
		if !seen[want] {
			t.Errorf("%s is not reached from the page", want)
		}
	}
}

// TestKinds: GET /v1/kinds describes inject.Kinds(), with parameters,
// types and defaults.
func TestKinds(t *testing.T) {
	f := setup(t, "httptest", nil, api.Options{})
	status, body := f.call(t, "GET", "/v1/kinds", "", "")
	var list api.KindList
	if err := json.Unmarshal([]byte(body), &list); status != 200 || err != nil {
		t.Fatalf("GET /v1/kinds: %d %v: %s", status, err, body)
	}
	var names []string
	for _, k := range inject.Kinds() {
		names = append(names, k.Name)
	}
	var got []string
	byName := map[string]api.Kind{}
	for _, k := range list.Kinds {
		got = append(got, k.Name)
		byName[k.Name] = k
	}
	if !slices.Equal(got, names) {
		t.Fatalf("kinds = %v, want %v", got, names)
	}
	param := func(kind, name string) api.KindParam {
		for _, p := range byName[kind].Params {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("%s has no parameter %s: %+v", kind, name, byName[kind].Params)
		return api.KindParam{}
	}
	if k := byName["http_error"]; k.TCP || !k.HTTP || k.Summary == "" {
		t.Errorf("http_error = %+v, want HTTP only with a summary", k)
	}
	if p := param("http_error", "status"); p.Type != "integer" || p.Default != float64(503) {
		t.Errorf("http_error status = %+v", p)
	}
	if p := param("http_error", "headers"); p.Type != "object" || p.Default != nil {
		t.Errorf("http_error headers = %+v", p)
	}
	if p := param("http_error", "after_upstream"); p.Type != "boolean" {
		t.Errorf("http_error after_upstream = %+v", p)
	}
	if p := param("latency", "delay"); p.Type != "duration" || p.Default != nil {
		t.Errorf("latency delay = %+v", p)
	}
	if p := param("latency", "direction"); p.Type != "string" || p.Default != "response" || !slices.Equal(p.Choices, []string{"request", "response", "both"}) {
		t.Errorf("latency direction = %+v", p)
	}
	if p := param("unreachable", "mode"); p.Type != "string" || p.Default != "refuse" || !slices.Equal(p.Choices, []string{"refuse", "blackhole"}) {
		t.Errorf("unreachable mode = %+v", p)
	}
	if p := param("http_error", "status"); p.Min != float64(200) || p.Max != float64(599) {
		t.Errorf("http_error status bounds = %v-%v, want 200-599", p.Min, p.Max)
	}
	if p := param("latency", "delay"); p.Min != "0s" || p.Max != "1h0m0s" || p.Doc == "" {
		t.Errorf("latency delay = %+v, want bounded by the default cap, with a doc", p)
	}
	if p := param("bandwidth", "rate"); !p.Required || p.Min != float64(1) {
		t.Errorf("bandwidth rate = %+v, want required, at least 1", p)
	}
	for _, k := range inject.Kinds() {
		var want []api.KindOutcome
		for _, r := range k.OutcomeTable() {
			want = append(want, api.KindOutcome{Params: r.Params, Protocol: r.Protocol, Outcome: string(r.Effect.Outcome), ServerKnows: r.Effect.ServerKnows})
		}
		got := byName[k.Name].Outcomes
		if len(got) != len(want) || len(byName[k.Name].Behavior) != len(k.Behavior) {
			t.Errorf("%s: %d outcomes and %d behaviors, want %d and %d", k.Name, len(got), len(byName[k.Name].Behavior), len(want), len(k.Behavior))
			continue
		}
		for i := range want {
			if got[i].Protocol != want[i].Protocol || got[i].Outcome != want[i].Outcome || got[i].ServerKnows != want[i].ServerKnows {
				t.Errorf("%s outcome %d = %+v, want %+v", k.Name, i, got[i], want[i])
			}
		}
	}
}

// TestExamples: every embedded example is listed, with its scenario's
// name, and served as YAML that parses.
func TestExamples(t *testing.T) {
	f := setup(t, "httptest", nil, api.Options{})
	status, body := f.call(t, "GET", "/v1/examples", "", "")
	var list api.ExampleList
	if err := json.Unmarshal([]byte(body), &list); status != 200 || err != nil {
		t.Fatalf("GET /v1/examples: %d %v: %s", status, err, body)
	}
	files, err := fs.Glob(examples.Demo, "demo/*.yaml")
	if err != nil || len(files) == 0 || len(list.Examples) != len(files) {
		t.Fatalf("%d examples listed, %d embedded (%v)", len(list.Examples), len(files), err)
	}
	for _, ex := range list.Examples {
		status, yaml := f.call(t, "GET", "/v1/examples/"+ex.Name, "", "")
		if status != 200 {
			t.Errorf("GET /v1/examples/%s: %d", ex.Name, status)
			continue
		}
		sc, err := scenario.Parse(ex.Name+".yaml", []byte(yaml))
		if err != nil || sc.Name != ex.Scenario || ex.Description == "" {
			t.Errorf("%s: %+v: %v", ex.Name, ex, err)
		}
	}
	for _, bad := range []string{"nope", "..%2Fexamples", "careful-timeout.yaml"} {
		if status, _ := f.call(t, "GET", "/v1/examples/"+bad, "", ""); status != 404 {
			t.Errorf("GET /v1/examples/%s: %d, want 404", bad, status)
		}
	}
}
