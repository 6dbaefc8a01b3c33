package agentsim

import (
	"context"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// probeRun counts probe side effects as the difference between a reading
// before the server starts and one after the run, so that state left by
// earlier runs against the same upstream does not count.
type probeRun struct {
	sc     *scenario.Scenario
	ups    []inject.UpstreamInfo
	self   string
	base   []int
	errors []error
}

func newProbeRun(sc *scenario.Scenario, ups []inject.UpstreamInfo, self string) *probeRun {
	return &probeRun{sc: sc, ups: ups, self: self, base: make([]int, len(sc.SideEffects)), errors: make([]error, len(sc.SideEffects))}
}

func (p *probeRun) before(ctx context.Context) {
	for i, s := range p.sc.SideEffects {
		if s.Probe != nil {
			p.base[i], p.errors[i] = s.Probe.Count(ctx, p.ups, p.self)
		}
	}
}

// after returns the probes' counts, in scenario order.
func (p *probeRun) after(ctx context.Context) []transcript.SideEffectCount {
	var out []transcript.SideEffectCount
	for i, s := range p.sc.SideEffects {
		if s.Probe == nil {
			continue
		}
		sc := transcript.SideEffectCount{Name: s.Name, Intended: s.Intended, Source: "probe"}
		if err := p.errors[i]; err != nil {
			sc.Error = "before the run: " + err.Error()
		} else if n, err := s.Probe.Count(ctx, p.ups, p.self); err != nil {
			sc.Error = "after the run: " + err.Error()
		} else {
			sc.Committed = n - p.base[i]
		}
		out = append(out, sc)
	}
	return out
}

// mergeSideEffects puts matcher and probe counts back in scenario order.
func mergeSideEffects(sc *scenario.Scenario, events, probes []transcript.SideEffectCount) []transcript.SideEffectCount {
	out := make([]transcript.SideEffectCount, 0, len(sc.SideEffects))
	for _, s := range sc.SideEffects {
		from := &events
		if s.Probe != nil {
			from = &probes
		}
		if len(*from) > 0 {
			out = append(out, (*from)[0])
			*from = (*from)[1:]
		}
	}
	return out
}
