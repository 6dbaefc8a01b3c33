package agentsim

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// applyProxyEnv puts the run's forward upstream in the server's
// environment (see scenario.ProxyEnvVars), with the run CA's files in
// the run's directory when the upstream intercepts TLS.
func applyProxyEnv(sc *scenario.Scenario, spec *driver.ServerSpec, reg *inject.Registry, ups []inject.UpstreamInfo, files *scenario.RenderedFiles) error {
	listen, err := scenario.ProxyListen(ups)
	if err != nil {
		return err
	}
	var ca []byte
	var dir string
	if sc.ProxyEnv.InterceptTLS {
		if ca, err = reg.ForwardCA(scenario.ProxyEnvName); err != nil {
			return fmt.Errorf("proxy_env: %w", err)
		}
		if dir, err = files.EnsureDir(); err != nil {
			return err
		}
	}
	vars, err := scenario.ProxyEnvVars(listen, ca, dir, spec.Env)
	if err != nil {
		return err
	}
	env := maps.Clone(spec.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, vars)
	spec.Env = env
	return nil
}

// Warnings a run with proxy_env may get (docs/proxy-env.md).
const (
	// WarnNoProxyTraffic: a rule was meant for the forward upstream and
	// nothing the server sent reached it.
	WarnNoProxyTraffic = "no traffic from the server reached the proxy"
	// WarnNeedsInterception: an HTTP-level rule was meant for hosts the
	// server reached through CONNECT tunnels, which it cannot see into.
	WarnNeedsInterception = "HTTP-level rules need interception"
)

// httpFields are the fields of `when` that only an HTTP request has.
var httpFields = []string{"method", "path", "query", "header", "body_size", "seq", "conn_request"}

// proxyWarnings says, from the run's events, when faults meant for the
// run's forward upstream could not apply: the server's traffic never
// reached it (the server ignores the proxy environment), or HTTP-level
// rules met tunnels that are not intercepted.
func proxyWarnings(sc *scenario.Scenario, evs []inject.Event) []string {
	if sc.ProxyEnv == nil {
		return nil
	}
	var meant, httpLevel []string
	others := len(sc.Upstreams) > 1
	for _, r := range config.RuleSet(sc.Rules) {
		if !(sc.IsProxyName(r.Upstream) || (r.Upstream == "" && !others)) {
			continue
		}
		meant = append(meant, r.Name)
		if isHTTPLevel(r) {
			httpLevel = append(httpLevel, r.Name)
		}
	}
	if len(meant) == 0 {
		return nil
	}
	reached := false
	var tunnels []string
	for _, e := range evs {
		if e.Via != scenario.ProxyEnvName {
			continue
		}
		reached = true
		if e.Type == inject.EventConnOpen && e.Protocol == inject.ProtocolTCP && !slices.Contains(tunnels, e.Host) {
			tunnels = append(tunnels, e.Host)
		}
	}
	var out []string
	if !reached {
		out = append(out, fmt.Sprintf("%s: %s never applied. The server may ignore HTTP_PROXY and HTTPS_PROXY "+
			"(its own transport, NO_PROXY, Node before 24); Go never proxies loopback addresses: call the upstream by a host name "+
			"and map it with resolve (docs/proxy-env.md)", WarnNoProxyTraffic, quoteRules(meant)))
	}
	if !sc.ProxyEnv.InterceptTLS && len(httpLevel) > 0 && len(tunnels) > 0 {
		out = append(out, fmt.Sprintf("%s: %s cannot see into the CONNECT tunnels the server opened to %s, where only TCP faults apply; "+
			"set server.intercept_tls (scan --intercept-tls)", WarnNeedsInterception, quoteRules(httpLevel), strings.Join(tunnels, ", ")))
	}
	return out
}

// isHTTPLevel reports whether a rule needs an HTTP request to apply: a
// kind only HTTP has, or a condition that reads a request's fields.
func isHTTPLevel(r rules.Rule) bool {
	if k, ok := inject.Kind(r.Fault.Kind); ok && !k.TCP {
		return true
	}
	if r.When == "" {
		return false
	}
	prog, err := rules.CompileExpr(r.Name, r.When)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(rules.Fields(prog), func(f string) bool { return slices.Contains(httpFields, f) })
}

// quoteRules names rules for a warning: `rule "a"`, `rules "a", "b"`.
func quoteRules(names []string) string {
	word := "rule "
	if len(names) > 1 {
		word = "rules "
	}
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return word + b.String()
}
