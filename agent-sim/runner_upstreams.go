package agentsim

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/inject"
)

// startUpstreams starts what a run puts beneath the server: a fresh
// built-in upstream for each builtin: target, and a proxy in reg for each
// upstream. It returns the proxies in the scenario's order and a function
// that stops the built-ins, to be called after reg is closed (a proxy
// outlives nothing it forwards to); the function is never nil, also on
// error. ca, when not nil, is the CA of forward upstreams that intercept.
func startUpstreams(ctx context.Context, sc *scenario.Scenario, reg *inject.Registry, builtins map[string]Builtin, ca *inject.CA) ([]inject.UpstreamInfo, func() error, error) {
	var stops []func() error
	stopAll := func() error {
		var errs []error
		for _, stop := range stops {
			errs = append(errs, stop())
		}
		return errors.Join(errs...)
	}
	ups := make([]inject.UpstreamInfo, 0, len(sc.Upstreams))
	for _, u := range sc.Upstreams {
		spec := u.Spec()
		if spec.Forward != nil && ca != nil {
			f := *spec.Forward // the scenario's spec is shared by its runs
			f.CA = ca
			spec.Forward = &f
		}
		if name, ok := strings.CutPrefix(spec.Target, scenario.BuiltinPrefix); ok {
			start := builtins[name]
			if start == nil {
				return nil, stopAll, fmt.Errorf("upstream %q: %q is not a built-in upstream here (%s)", u.Name, spec.Target, builtinNames(builtins))
			}
			target, stop, err := start(ctx)
			if err != nil {
				return nil, stopAll, fmt.Errorf("upstream %q: starting %s: %w", u.Name, spec.Target, err)
			}
			stops = append(stops, stop)
			spec.Target = target
		}
		info, err := reg.AddUpstream(spec)
		if err != nil {
			return nil, stopAll, u.Locate(err)
		}
		ups = append(ups, info)
	}
	return ups, stopAll, nil
}
