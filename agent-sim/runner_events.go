package agentsim

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// collector keeps every event a run's bus publishes.
type collector struct {
	sub  *inject.Subscription
	done chan struct{}
	evs  []inject.Event
}

// collectBuffer is the subscription's buffer: a run publishes a few
// events per call, so it never fills unless the collector is starved.
const collectBuffer = 8192

func collect(bus *inject.Bus) *collector {
	c := &collector{sub: bus.Subscribe(collectBuffer), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for e := range c.sub.C() {
			c.evs = append(c.evs, e)
		}
	}()
	return c
}

// stop ends the subscription and returns the events, once the collector
// has drained them.
func (c *collector) stop() []inject.Event {
	c.sub.Close()
	<-c.done
	return c.evs
}

// attribute fills each call's Injections, Faults, Exchanges and
// Committed from the events stamped with its call number (an exchange
// held past its call's deadline is still counted against the call that
// made it), and a refusal by a closed listener to every call it was in
// force for (see inForce).
func attribute(calls []transcript.Call, evs []inject.Event, ruleSet []rules.Rule) {
	for _, e := range evs {
		if e.Call < 1 || e.Call > len(calls) {
			continue
		}
		c := &calls[e.Call-1]
		switch e.Type {
		case inject.EventInjection:
			addInjection(c, e, !refusesAll(e))
		case inject.EventExchange:
			c.Exchanges++
			if e.Committed && e.Status > 0 && e.Status < 300 {
				c.Committed++
			}
		}
	}
	inForce(calls, evs, ruleSet)
}

// countSideEffects counts each matcher's effects over all exchanges of
// the run, including those made between calls (see countMatches).
func countSideEffects(sc *scenario.Scenario, evs []inject.Event) []transcript.SideEffectCount {
	var out []transcript.SideEffectCount
	for i := range sc.SideEffects {
		s := &sc.SideEffects[i]
		if s.Probe != nil {
			continue
		}
		n, folded := scenario.CountMatches(s, evs)
		out = append(out, transcript.SideEffectCount{Name: s.Name, Intended: s.Intended, Committed: n, Source: "events", Folded: folded})
	}
	return out
}

// writeTools are the tools the judge treats as writes: not annotated
// read-only, named by the scenario, or seen committing a side effect (a
// tool annotated read-only that commits is one the judge must catch).
func writeTools(sc *scenario.Scenario, tools []transcript.Tool, evs []inject.Event) map[string]bool {
	w := map[string]bool{}
	for _, t := range tools {
		if !t.ReadOnly {
			w[t.Name] = true
		}
	}
	for _, t := range sc.Agent.WriteTools {
		w[t] = true
	}
	for i := range sc.SideEffects {
		for _, e := range evs {
			if e.Tool != "" && sc.SideEffects[i].Matches(e) {
				w[e.Tool] = true
			}
		}
	}
	return w
}

// validationCalls are the calls that served a step marked invalid, with
// that step's tool.
func validationCalls(sc *scenario.Scenario, calls []transcript.Call) map[int]bool {
	var out map[int]bool
	for _, c := range calls {
		// Only the invalid arguments themselves: a retry the reply
		// corrected (the missing argument added) is an ordinary call.
		if c.Step >= 1 && c.Step <= len(sc.Steps) && sc.Steps[c.Step-1].Invalid &&
			transcript.CallKey(c.Tool, c.Args) == transcript.CallKey(sc.Steps[c.Step-1].Tool, sc.Steps[c.Step-1].Args) {
			if out == nil {
				out = map[int]bool{}
			}
			out[c.N] = true
		}
	}
	return out
}
