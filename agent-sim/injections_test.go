package agentsim

import (
	"slices"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// TestAttributeRefusalInForce: a refusal by a closed listener is
// published once, when it starts; it belongs to every call during which
// the rule still matched, whether it started before the call (call 0:
// with the run's rules) or during an earlier one. Its dials are not
// counted; a per-dial refusal's are.
func TestAttributeRefusalInForce(t *testing.T) {
	refusal := func(rule string, call int) inject.Event {
		return inject.Event{Type: inject.EventInjection, Upstream: "db", Protocol: "tcp", Rule: rule, Fault: "unreachable",
			Outcome: inject.OutcomeNotSent, ServerKnows: true, Call: call}
	}
	perDial := refusal("some dials", 2)
	perDial.Conn = 3
	evs := []inject.Event{
		refusal("down", 0),          // the run's rules: in force from the start
		refusal("not for reads", 0), // `tool != "read"`: matched before any call
		refusal("writes only", 1),   // `tool == "write"`: started in call 1
		refusal("writes only", 3),   // and again in call 3
		perDial, perDial,            // two dials of call 2 refused one by one
		refusal("unknown rule", 0), // not in the rule set: ignored
	}
	ruleSet := []rules.Rule{
		{Name: "down", Upstream: "db"},
		{Name: "not for reads", Upstream: "db", When: `tool != "read"`},
		{Name: "writes only", Upstream: "db", When: `tool == "write"`},
		{Name: "some dials", Upstream: "db", When: "conn > 2"},
	}
	calls := []transcript.Call{{N: 1, Tool: "write"}, {N: 2, Tool: "read"}, {N: 3, Tool: "write"}}
	attribute(calls, evs, ruleSet)
	want := [][]string{
		{"down", "not for reads", "writes only"},
		{"down", "some dials"},
		{"down", "not for reads", "writes only"},
	}
	for i, c := range calls {
		var got []string
		for _, f := range c.Faults {
			got = append(got, f.Rule)
			wantHits := 0
			if f.Rule == "some dials" {
				wantHits = 2
			}
			if f.Hits != wantHits || f.Outcome != inject.OutcomeNotSent || !f.ServerKnows {
				t.Errorf("call %d: %+v; want hits %d, not_sent, known", c.N, f, wantHits)
			}
		}
		slices.Sort(got)
		inj := slices.Sorted(slices.Values(c.Injections))
		if !slices.Equal(got, want[i]) || !slices.Equal(inj, got) {
			t.Errorf("call %d: faults %v injections %v; want %v", c.N, got, c.Injections, want[i])
		}
	}
}
