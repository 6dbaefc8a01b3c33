package scenario

// The inverse of the server's templates: what a run created, mapped back
// to the template a scenario writes for it, for the report's redaction.

import (
	"net/url"
	"strings"

	"github.com/mcpchaos/mcpchaos/inject"
)

// hostPort is the host:port of a target, which is a URL (http) or
// already host:port (tcp).
func hostPort(target string) string {
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		return u.Host
	}
	return target
}

// Placeholders maps what a run created to the template a scenario
// writes for the same thing, for the report's redaction: ups are the
// run's proxies in sc.Upstreams' order, self the mcpchaos binary. A
// target the scenario wrote itself is left as written: the run did not
// choose it.
func (sc *Scenario) Placeholders(ups []inject.UpstreamInfo, self string) map[string]string {
	repl := map[string]string{}
	for i, u := range ups {
		if u.Listen == "" {
			continue
		}
		if u.Protocol == inject.ProtocolHTTP || u.Protocol == inject.ProtocolForward {
			repl["http://"+u.Listen] = `{{ upstream "` + u.Name + `" }}`
			repl[u.Listen] = `{{ upstream_addr "` + u.Name + `" }}`
		} else {
			repl[u.Listen] = `{{ upstream "` + u.Name + `" }}`
		}
		if i >= len(sc.Upstreams) || !strings.HasPrefix(sc.Upstreams[i].Target, BuiltinPrefix) || u.Target == "" {
			continue
		}
		repl[u.Target] = `{{ target "` + u.Name + `" }}`
		if hp := hostPort(u.Target); hp != u.Target {
			repl[hp] = `{{ target_addr "` + u.Name + `" }}`
		}
	}
	if self != "" {
		repl[self] = "{{ mcpchaos }}"
	}
	return repl
}
