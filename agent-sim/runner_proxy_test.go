package agentsim

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/inject"
)

// proxyWarnings reads the run's events: no event through the proxy is
// "no traffic"; an HTTP-level rule meant for a host reached by tunnel,
// without interception, needs interception; neither when all is well.
func TestProxyWarnings(t *testing.T) {
	parse := func(intercept bool, rule string) *scenario.Scenario {
		t.Helper()
		src := "server:\n  command: [a]\n  proxy_env: true\n"
		if intercept {
			src += "  intercept_tls: true\n"
		}
		sc, err := scenario.Parse("s.yaml", []byte(src+"rules:\n  - "+rule+"\nsteps:\n  - tool: a\n"))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	tunnel := []inject.Event{{Type: inject.EventConnOpen, Upstream: "l.test", Host: "l.test", Via: scenario.ProxyEnvName, Protocol: inject.ProtocolTCP}}
	httpRule := `{name: r, upstream: proxy, when: 'path == "/x"', fault: {kind: reset}}`
	tcpRule := `{name: r, fault: {kind: reset}}`
	for _, tc := range []struct {
		name      string
		sc        *scenario.Scenario
		evs       []inject.Event
		want      string
		wantCount int
	}{
		{"no traffic", parse(false, tcpRule), nil, WarnNoProxyTraffic, 1},
		{"http rule on a tunnel", parse(false, httpRule), tunnel, WarnNeedsInterception, 1},
		{"http kind on a tunnel", parse(false, `{name: r, upstream: proxy, fault: {kind: http_error}}`), tunnel, WarnNeedsInterception, 1},
		{"tcp rule on a tunnel", parse(false, tcpRule), tunnel, "", 0},
		{"intercepted", parse(true, httpRule), []inject.Event{{Type: inject.EventExchange, Via: scenario.ProxyEnvName}}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := proxyWarnings(tc.sc, tc.evs)
			if len(got) != tc.wantCount || (tc.want != "" && !strings.HasPrefix(got[0], tc.want)) {
				t.Errorf("warnings %q; want %d starting %q", got, tc.wantCount, tc.want)
			}
		})
	}
}
