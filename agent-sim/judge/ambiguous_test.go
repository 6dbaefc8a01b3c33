package judge

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestAmbiguousOnFacts: MC004 read against what the exchange shows. A
// reply that says the thing already exists as this call's passes when the
// upstream committed (the lost reply's write stands), is a warning when it
// does not say whose it is, and stands when no exchange says so; a confident definite claim the facts contradict is an error, unless
// the estimate says the reply probably states the outcome unknown; a
// reply that stops the repeat and names a tool to look with is not
// graded when the upstream committed, a warning otherwise. The
// signals are given, so the test is about the judge, not the reader.
func TestAmbiguousOnFacts(t *testing.T) {
	notC := reader.Outcome{State: reader.OutcomeNotCommitted, Evidence: reader.Evidence{Confidence: reader.Confident,
		Source: reader.Source{Kind: reader.FromSentence, Quote: "No new contact was created."}}}
	bare := notC
	bare.Exists = true
	exists := bare
	exists.Own = true
	likely := reader.Estimate{Unknown: reader.Likelihood{P: 0.9, Likely: true, Quote: "only some of it landed"}}
	for _, tc := range []struct {
		name      string
		outcome   inject.Outcome
		committed int
		out       reader.Outcome
		est       reader.Estimate
		want      Severity // "" when MC004 must not fire
	}{
		{"exists after a lost reply", inject.OutcomeCommittedReplyLost, 1, exists, reader.Estimate{}, ""},
		{"exists, nothing committed", inject.OutcomeUnknown, 0, exists, reader.Estimate{}, SeverityError},
		{"exists, not said whose, after a lost reply", inject.OutcomeCommittedReplyLost, 1, bare, reader.Estimate{}, SeverityWarning},
		{"denial after a lost reply", inject.OutcomeCommittedReplyLost, 1, notC, reader.Estimate{}, SeverityError},
		{"denial the estimate doubts", inject.OutcomePartiallyApplied, 0, notC, likely, SeverityWarning},
		{"look it up, no repeat, after a commit", inject.OutcomeCommittedReplyLost, 1, reader.Outcome{}, reader.Estimate{}, SeverityInfo},
		{"look it up, no repeat, no commit seen", inject.OutcomeUnknown, 0, reader.Outcome{}, reader.Estimate{}, SeverityWarning},
	} {
		sig := reader.Signals{Read: true, Outcome: tc.out, Estimate: tc.est}
		if tc.out.State == "" {
			sig.Retry = reader.Retry{Kind: reader.DoNotRetry}
			sig.Next = reader.NextAction{Tools: []string{"get_contact"}}
		}
		if got := mc004Severity(tc.outcome, tc.committed, sig); got != tc.want {
			t.Errorf("%s: MC004 severity %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestStatedEstimateAfterCommit: where the exchange shows a commit, a
// reply the estimate says probably states the outcome (unknown or done)
// is not graded on MC004; with no commit, a claim of done would be
// wrong, so the same estimate does not count.
func TestStatedEstimateAfterCommit(t *testing.T) {
	stated := reader.Estimate{Stated: reader.Likelihood{P: 0.8, Likely: true, Quote: "we have it on our side"}}
	for _, tc := range []struct {
		name      string
		outcome   inject.Outcome
		committed int
		est       reader.Estimate
		want      Severity
	}{
		{"stated, after a commit", inject.OutcomeCommittedReplyLost, 1, stated, SeverityInfo},
		{"stated, no commit seen", inject.OutcomeUnknown, 0, stated, SeverityError},
		{"not stated, after a commit", inject.OutcomeCommittedReplyLost, 1, reader.Estimate{}, SeverityError},
	} {
		if got := mc004Severity(tc.outcome, tc.committed, reader.Signals{Read: true, Estimate: tc.est}); got != tc.want {
			t.Errorf("%s: MC004 severity %q, want %q", tc.name, got, tc.want)
		}
	}
}

// mc004Severity judges one create_contact tool error hit by a fault with
// outcome, the exchange showing committed commits, read as sig; it
// returns MC004's severity, "" when it does not fire.
func mc004Severity(outcome inject.Outcome, committed int, sig reader.Signals) Severity {
	c := simtest.WithTraffic(simtest.Rec(1, "create_contact", transcript.ChannelToolError, 0, "reply"), []string{"corpus"}, 1, committed)
	c.Faults = []transcript.InjectionRecord{{Rule: "corpus", Kind: "corpus", Outcome: outcome, Hits: 1}}
	c.Signals = &transcript.ReplySignals{Signals: sig}
	in := Input{Calls: []transcript.Call{c}, Converged: true, Budget: 10,
		Tools: []transcript.Tool{{Name: "create_contact"}, {Name: "get_contact", ReadOnly: true}}, WriteTools: map[string]bool{"create_contact": true}}
	var got Severity
	for _, f := range Judge(in) {
		if f.ID == "MC004" {
			got = f.Severity
		}
	}
	return got
}
