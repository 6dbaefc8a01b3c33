package judge

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestAbsenceWithheldOnEstimate: a finding that claims guidance is absent
// (MC005, MC006) or that the reply does not say the outcome is unknown
// (MC004) is info, with its basis and the estimate in the evidence, when
// the reader's estimate says the reply probably gives it; without the
// estimate it stands. The signals are given, so the test is about the
// judge, not about what the model learnt.
func TestAbsenceWithheldOnEstimate(t *testing.T) {
	likely := reader.Likelihood{P: 0.93, Likely: true, Quote: "Hold off on charge_card until list_charges shows it."}
	unlikely := reader.Likelihood{P: 0.40}
	for _, tc := range []struct {
		id  string
		est reader.Estimate
	}{
		{"MC005", reader.Estimate{Retry: likely}},
		{"MC006", reader.Estimate{Next: likely}},
		{"MC004", reader.Estimate{Unknown: likely}},
	} {
		for _, est := range []reader.Estimate{{Retry: unlikely, Next: unlikely, Unknown: unlikely}, tc.est} {
			c := simtest.WithTraffic(simtest.Rec(1, "charge_card", transcript.ChannelToolError, 0, "the ledger did not answer"), []string{"lose reply"}, 1, 0)
			c.Faults = []transcript.InjectionRecord{{Rule: "lose reply", Kind: "corpus", Outcome: inject.OutcomeCommittedReplyLost, Hits: 1}}
			c.Signals = &transcript.ReplySignals{Signals: reader.Signals{Read: true, Estimate: est}}
			in := Input{Calls: []transcript.Call{c}, Converged: true, Budget: 10,
				Tools: []transcript.Tool{{Name: "charge_card"}, {Name: "list_charges", ReadOnly: true}}, WriteTools: map[string]bool{"charge_card": true}}
			var f *Finding
			for _, x := range Judge(in) {
				if x.ID == tc.id {
					f = &x
				}
			}
			if f == nil {
				t.Fatalf("%s: not raised at all", tc.id)
			}
			withheld := est == tc.est
			if got := f.Severity == SeverityInfo && f.Basis == BasisUnreadGuidance; got != withheld {
				t.Errorf("%s with estimate %+v: severity %s, basis %q", tc.id, est, f.Severity, f.Basis)
			}
			if withheld && !strings.Contains(f.Evidence, "estimate 0.93") {
				t.Errorf("%s: evidence lacks the estimate: %s", tc.id, f.Evidence)
			}
		}
	}
}
