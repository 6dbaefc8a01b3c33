package api_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpchaos/mcpchaos/api"
)

// TestForwardUpstream: a forward upstream is created over the API; its
// answer (valid against the document) has its settings, its declared
// hosts and its run CA's certificate, never a key; destinations outside
// the allowlist are refused by the proxy; disabling and enabling keeps
// the CA a server trusts; forward settings on another protocol are a
// 400.
func TestForwardUpstream(t *testing.T) {
	up := backend(t)
	allow, err := api.ParseAllowlist([]string{"ledger.example.test", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	f := setup(t, "loopback", nil, api.Options{Allow: allow})
	upAddr := strings.TrimPrefix(up.URL, "http://")
	body := `{"name":"web","protocol":"forward","intercept_tls":true,` +
		`"resolve":["ledger.example.test:80=` + upAddr + `","other.example.test:80=` + upAddr + `"],` +
		`"hosts":[{"name":"ledger","host":"ledger.example.test"}]}`
	status, resp := f.call(t, "POST", "/v1/upstreams", "application/json", body)
	if status != 201 {
		t.Fatalf("create: %d %s", status, resp)
	}
	doc := openAPIDoc(t)
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem://openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	v, _ := jsonschema.UnmarshalJSON(strings.NewReader(resp))
	validate(t, c, "forward upstream", map[string]any{"$ref": "#/components/schemas/Upstream"}, v)
	var u api.Upstream
	if err := json.Unmarshal([]byte(resp), &u); err != nil {
		t.Fatal(err)
	}
	if u.Forward == nil || !u.Forward.InterceptTLS || len(u.Hosts) != 1 || u.Hosts[0].Name != "ledger" || !u.Hosts[0].Declared ||
		!strings.HasPrefix(u.CACert, "-----BEGIN CERTIFICATE-----") || strings.Contains(resp, "PRIVATE KEY") {
		t.Fatalf("forward upstream %s", resp)
	}

	// Through the proxy: an allowed destination is reached, one the
	// allowlist does not name is refused before any dial.
	get := func(url string) (int, string) {
		t.Helper()
		conn, err := net.DialTimeout("tcp", u.Listen, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		host := strings.TrimPrefix(url, "http://")
		host, _, _ = strings.Cut(host, "/")
		if _, err := io.WriteString(conn, "GET "+url+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		r, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		return r.StatusCode, r.Header.Get("Proxy-Status")
	}
	if st, _ := get("http://ledger.example.test/x"); st != 200 {
		t.Errorf("allowed destination: %d", st)
	}
	if st, ps := get("http://other.example.test/x"); st != 403 || !strings.Contains(ps, "destination_ip_prohibited") {
		t.Errorf("denied destination: %d %q; want 403 destination_ip_prohibited", st, ps)
	}

	for _, p := range []string{"/v1/upstreams/web/disable", "/v1/upstreams/web/enable"} {
		if st, b := f.call(t, "POST", p, "", ""); st != 200 {
			t.Fatalf("%s: %d %s", p, st, b)
		}
	}
	_, resp = f.call(t, "GET", "/v1/upstreams/web", "", "")
	var again api.Upstream
	if err := json.Unmarshal([]byte(resp), &again); err != nil {
		t.Fatal(err)
	}
	if again.CACert != u.CACert {
		t.Errorf("enabling again made a new CA; want the one the server trusts kept")
	}

	st, resp := f.call(t, "POST", "/v1/upstreams", "application/json", `{"name":"x","protocol":"http","target":"127.0.0.1:9","intercept_tls":true}`)
	if st != 400 || errorOf(t, resp).Field != "protocol" {
		t.Errorf("forward settings on http: %d %s; want 400 on protocol", st, resp)
	}
	st, resp = f.call(t, "POST", "/v1/upstreams", "application/json", `{"name":"y","protocol":"forward","resolve":["nope"]}`)
	if st != 400 || errorOf(t, resp).Field != "resolve[0]" {
		t.Errorf("a bad resolve entry: %d %s; want 400 on resolve[0]", st, resp)
	}
}
