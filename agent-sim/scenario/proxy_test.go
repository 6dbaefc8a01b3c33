package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/internal/testpki"
)

// server.proxy_env and its fields, and upstreams entries naming hosts:
// each mistake is an error at its line.
func TestParseProxyEnvErrors(t *testing.T) {
	const steps = "steps:\n  - tool: a\n"
	for _, tc := range []struct{ name, src, want string }{
		{"intercept without proxy_env", "server:\n  command: [a]\n  intercept_tls: true\n" + steps,
			"s.yaml:3: server.intercept_tls: applies with proxy_env: true only"},
		{"host without proxy_env", "server:\n  command: [a]\nupstreams:\n  - {name: l, host: l.test}\n" + steps,
			`s.yaml:4: upstreams[0]: names a destination of the run's forward proxy (host "l.test"): set server.proxy_env: true`},
		{"url", "server:\n  url: http://127.0.0.1:1/mcp\n  proxy_env: true\n" + steps,
			"s.yaml:3: server.proxy_env: needs a server mcpchaos starts"},
		{"env sets a proxy", "server:\n  command: [a]\n  proxy_env: true\n  env:\n    HTTPS_PROXY: x\n" + steps,
			"s.yaml:5: server.env.HTTPS_PROXY: is set by proxy_env"},
		{"proxy taken", "server:\n  command: [a]\n  proxy_env: true\nupstreams:\n  - {name: proxy, target: 127.0.0.1:1}\n" + steps,
			`s.yaml:3: server.proxy_env: the run's forward upstream is named "proxy"`},
		{"resolve", "server:\n  command: [a]\n  proxy_env: true\n  resolve: [nope]\n" + steps,
			`s.yaml:4: server.resolve: resolve "nope": want HOST:PORT=ADDR`},
		{"upstream_ca missing", "server:\n  command: [a]\n  proxy_env: true\n  intercept_tls: true\n  upstream_ca: nope.pem\n" + steps,
			"s.yaml:5: server.upstream_ca: nope.pem open nope.pem"},
		{"host entry field", "server:\n  command: [a]\n  proxy_env: true\nupstreams:\n  - {name: l, host: l.test, target: x:1}\n" + steps,
			"s.yaml:5: upstreams[0].target: an entry with a host names a destination"},
		{"host entry host", "server:\n  command: [a]\n  proxy_env: true\nupstreams:\n  - {name: l, host: 'l.test:443'}\n" + steps,
			"s.yaml:5: upstreams[0].host: must be a host name"},
		{"rule naming no host", "server:\n  command: [a]\n  proxy_env: true\nupstreams:\n  - {name: ledger, host: l.test}\n" + steps +
			"rules:\n  - {name: r, upstream: ledgr, fault: {kind: reset}}\n", `s.yaml:9: rules[0].upstream: "ledgr" is not declared under upstreams (did you mean "ledger"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tc.src))
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got  %v\nwant %s…", err, tc.want)
			}
		})
	}
}

// A proxy_env scenario gets the forward upstream "proxy", with its
// declared hosts; rules and side effects name them; the server gets the
// proxy variables, and the CA files when intercepting.
func TestParseProxyEnv(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), testpki.New(t).CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	src := `server:
  command: [a]
  proxy_env: true
  intercept_tls: true
  upstream_ca: ca.pem
  resolve: ["ledger.example.test:443=127.0.0.1:8443"]
upstreams:
  - {name: ledger, host: ledger.example.test}
rules:
  - {name: r, upstream: ledger, when: 'host == "ledger.example.test" && via == "proxy"', fault: {kind: response_lost}}
side_effects:
  - {name: charges, upstream: proxy, match: 'committed && host == "ledger.example.test"'}
steps:
  - tool: a
`
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if sc.ProxyEnv == nil || !sc.ProxyEnv.InterceptTLS {
		t.Fatalf("ProxyEnv %+v", sc.ProxyEnv)
	}
	up := sc.Upstreams[len(sc.Upstreams)-1]
	if up.Name != ProxyEnvName || up.Forward == nil || len(up.Forward.UpstreamCA) == 0 ||
		up.Forward.Resolve["ledger.example.test:443"] != "127.0.0.1:8443" || len(up.Forward.Hosts) != 1 {
		t.Fatalf("the forward upstream %+v", up)
	}
	se := sc.SideEffects[0]
	if !se.Matches(inject.Event{Type: inject.EventExchange, Upstream: "ledger", Host: "ledger.example.test", Via: "proxy", Committed: true, Status: 201}) {
		t.Error("a side effect naming the forward upstream does not count its host's exchange")
	}

	ca, err := inject.NewCA(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", "")
	vars, err := ProxyEnvVars("127.0.0.1:3128", ca.CertPEM(), dir, map[string]string{"NO_PROXY": "internal.example"})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range append(slices.Clone(ProxyVars), inject.CAEnvVars...) {
		if vars[k] == "" {
			t.Errorf("%s is not set", k)
		}
	}
	if vars["HTTPS_PROXY"] != "http://127.0.0.1:3128" || vars["NODE_USE_ENV_PROXY"] != "1" {
		t.Errorf("proxy variables %v", vars)
	}
	if _, ok := vars["NO_PROXY"]; ok {
		t.Error("proxy_env set NO_PROXY; it is the user's")
	}
}
