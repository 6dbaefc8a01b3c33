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
// the reader's estimate says the reply probably gives it; MC004 on a
// reply that probably gives other guidance is at most a warning. Without
// the estimate each finding keeps its severity. The signals are given, so
// the test is about the judge, not about what the model learnt.
func TestAbsenceWithheldOnEstimate(t *testing.T) {
	likely := reader.Likelihood{P: 0.93, Likely: true, Quote: "Hold off on charge_card until list_charges shows it."}
	unlikely := reader.Likelihood{P: 0.40}
	none := reader.Estimate{Retry: unlikely, Next: unlikely, Unknown: unlikely}
	for _, tc := range []struct {
		id        string
		est       reader.Estimate
		sev, base Severity
		basis     Basis
	}{
		{"MC005", reader.Estimate{Retry: likely}, SeverityInfo, SeverityWarning, BasisUnreadGuidance},
		{"MC006", reader.Estimate{Next: likely}, SeverityInfo, SeverityWarning, BasisUnreadGuidance},
		{"MC004", reader.Estimate{Unknown: likely}, SeverityInfo, SeverityError, BasisUnreadGuidance},
		{"MC004", reader.Estimate{Retry: likely}, SeverityWarning, SeverityError, BasisTentative},
	} {
		for _, est := range []reader.Estimate{none, tc.est} {
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
			want := tc.base
			if est == tc.est {
				want = tc.sev
			}
			if f.Severity != want {
				t.Errorf("%s with estimate %+v: severity %s, want %s (basis %q)", tc.id, est, f.Severity, want, f.Basis)
			}
			if est == tc.est && f.Basis != tc.basis {
				t.Errorf("%s with estimate %+v: basis %q, want %q", tc.id, est, f.Basis, tc.basis)
			}
			if est == tc.est && tc.basis == BasisUnreadGuidance && !strings.Contains(f.Evidence, "estimate 0.93") {
				t.Errorf("%s: evidence lacks the estimate: %s", tc.id, f.Evidence)
			}
		}
	}
}

// TestLoopOnUnreadGuidance: a retry loop after a reply whose guidance the
// reader probably missed is a warning that says so, not an error.
func TestLoopOnUnreadGuidance(t *testing.T) {
	for _, likely := range []bool{false, true} {
		var calls []transcript.Call
		for i := 1; i <= 3; i++ {
			c := simtest.Rec(i, "charge_card", transcript.ChannelToolError, 0, "the ledger did not answer")
			c.Signals = &transcript.ReplySignals{Signals: reader.Signals{Read: true,
				Estimate: reader.Estimate{Retry: reader.Likelihood{P: 0.9, Likely: likely, Quote: "Hold off."}}}}
			calls = append(calls, c)
		}
		var f *Finding
		for _, x := range Judge(Input{Calls: calls, Budget: 3, Tools: []transcript.Tool{{Name: "charge_card"}}}) {
			if x.ID == "MC002" {
				f = &x
			}
		}
		if f == nil {
			t.Fatalf("likely=%v: MC002 not raised", likely)
		}
		if want := map[bool]Severity{false: SeverityError, true: SeverityWarning}[likely]; f.Severity != want {
			t.Errorf("likely=%v: severity %s, want %s", likely, f.Severity, want)
		}
		if likely != strings.Contains(f.Evidence, "did not read") {
			t.Errorf("likely=%v: evidence %s", likely, f.Evidence)
		}
	}
}
