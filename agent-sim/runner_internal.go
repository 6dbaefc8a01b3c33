package agentsim

import (
	"maps"
	"slices"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/inject"
)

// runInternal lists what a run knows is internal: each upstream's real
// target and the proxy address the run created for it, and the values of
// the env vars given to the server (resolved, so a proxy URL in an env
// var counts). internalValues filters and expands them for matching.
func runInternal(sc *scenario.Scenario, ups []inject.UpstreamInfo, self string) []string {
	var out []string
	for _, u := range ups {
		if u.Target != "" {
			out = append(out, u.Target)
		}
		out = append(out, u.Listen)
		if u.Forward != nil {
			// The addresses a forward upstream dials for its hosts.
			for _, k := range slices.Sorted(maps.Keys(u.Forward.Resolve)) {
				out = append(out, u.Forward.Resolve[k])
			}
		}
	}
	spec, err := sc.ResolveServer(ups, self)
	if err != nil {
		spec = sc.Server
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		out = append(out, spec.Env[k])
	}
	return out
}
