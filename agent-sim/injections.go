package agentsim

import (
	"slices"

	"github.com/expr-lang/expr"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// addInjection records one injection event in c.
func addInjection(c *transcript.Call, e inject.Event, counted bool) {
	if !slices.Contains(c.Injections, e.Rule) {
		c.Injections = append(c.Injections, e.Rule)
	}
	i := slices.IndexFunc(c.Faults, func(r transcript.InjectionRecord) bool { return r.Rule == e.Rule })
	if i < 0 {
		c.Faults = append(c.Faults, transcript.InjectionRecord{Rule: e.Rule, Kind: e.Fault, Outcome: e.Outcome, ServerKnows: e.ServerKnows})
		i = len(c.Faults) - 1
	}
	if counted {
		c.Faults[i].Hits++
	}
}

// refusesAll reports an injection event that closed an upstream's
// listener: the one refusal that the fault layer publishes when it
// starts, with no connection (every other injection names the
// connection it hit).
func refusesAll(e inject.Event) bool {
	return e.Type == inject.EventInjection && e.Conn == 0
}

// inForce attributes a closed-listener refusal to every call during
// which it was in force. The fault layer publishes it once, when it
// starts, stamped with the call in progress (none when it starts with
// the run's rules); it lasts until the rule stops matching. A run's
// rules do not change and never expire, and such a rule reads neither
// conn nor request (it would be decided per dial otherwise), so whether
// it is in force during a call depends only on the call's context: the
// rule's condition is evaluated with each call's tool, arguments,
// attempt and number. A call before the refusal started does not get it.
func inForce(calls []transcript.Call, evs []inject.Event, ruleSet []rules.Rule) {
	for _, e := range evs {
		if !refusesAll(e) {
			continue
		}
		i := slices.IndexFunc(ruleSet, func(r rules.Rule) bool { return r.Name == e.Rule })
		if i < 0 {
			continue
		}
		r := ruleSet[i]
		prog, err := rules.CompileExpr(r.Name, r.When)
		if err != nil {
			continue // the fault layer accepted it: cannot happen
		}
		for k := range calls {
			c := &calls[k]
			if c.N < e.Call || (e.Call > 0 && c.N == e.Call) {
				continue // before it started; its own call has the event already
			}
			env := rules.Env{Upstream: e.Upstream, Protocol: e.Protocol, Tool: c.Tool, Args: c.Args,
				Attempt: c.Attempt, Call: c.N, Request: 1}
			if prog != nil {
				if out, err := expr.Run(prog, env); err != nil || out != true {
					continue
				}
			}
			addInjection(c, e, false)
		}
	}
}
