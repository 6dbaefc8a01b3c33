package judge

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// ambiguousFault reports whether a fault that hit c left the server not
// knowing whether its write committed, as the fault declares it (see
// InjectionRecord): anything but a timing fault, unless what the server
// saw tells it the outcome (a refused dial, a status that means "not
// processed"). A blackhole leaves it hanging; an error after the upstream
// committed leaves it with an error for a write that happened. A call
// with injections but no declared outcomes (a transcript from before
// outcomes were recorded) is judged by its traffic: ambiguous when an
// upstream exchange happened.
func (j *judgeRun) ambiguousFault(c transcript.Call) bool {
	if len(c.Faults) == 0 {
		return len(c.Injections) > 0 && (c.Exchanges > 0 || c.Committed > 0)
	}
	for _, f := range c.Faults {
		if f.Outcome != inject.OutcomeDelivered && !f.ServerKnows {
			return true
		}
	}
	return false
}

// failedWrite reports whether a fault that hit c declares that the write
// did not (or need not have) committed, and no upstream exchange of the
// call committed either: a success reply then claims a write the
// upstream does not have. A fault whose outcome commits (a lost reply)
// or only delays does not count; one that may or may not commit (a
// partial write, an unknown outcome) counts only when an exchange was
// recorded and did not commit: with no exchange at all, whether the
// upstream has the write is not a fact the run holds.
func failedWrite(c transcript.Call) bool {
	if c.Committed > 0 {
		return false
	}
	if len(c.Faults) == 0 {
		return len(c.Injections) > 0
	}
	for _, f := range c.Faults {
		switch f.Outcome.Commits() {
		case "no":
			return true
		case "maybe":
			if c.Exchanges > 0 {
				return true
			}
		}
	}
	return false
}

// checkAmbiguous is MC004. The ambiguity is a fact (the fault's declared
// outcome); whether the reply stated it is a reading. It is an error when
// the reply confidently claims a definite outcome the facts do not
// support, or leaves the model nothing to act on but a repeat. A
// definite outcome read only tentatively, and a reply that names a tool
// to check with, says not to retry or sends the model to the user, while
// the reader found no statement that the outcome is unknown, rest on the
// reader (a sentence misread or not found) — a warning.
func checkAmbiguous(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		s := j.sigs[i]
		if c.Channel != transcript.ChannelToolError || !j.writes[c.Tool] || j.in.ValidationCalls[c.N] ||
			len(c.Injections) == 0 || !j.ambiguousFault(*c) ||
			s.Outcome.State == reader.OutcomeUnknown || statesCommitted(*c, s) || statesParts(*c, s) {
			continue
		}
		said := "the reply does not say the outcome is unknown"
		claims := s.Outcome.State != reader.OutcomeNone && s.Outcome.Confidence >= reader.Confident
		if st := s.Outcome.State; st != reader.OutcomeNone {
			said = fmt.Sprintf("the reply states it %s (%s)", stateWords(st), sourceText(s.Outcome.Evidence))
		}
		sev, basis := info.Severity, BasisFact
		switch {
		case !s.Read:
			sev, basis = SeverityInfo, BasisUnread
		case c.Committed > 0 && s.Outcome.Exists:
			// The upstream committed and the reply says the thing is
			// already there, but not that this call made it ("a Key
			// Value instance named sessions-cache already exists"): true
			// of the commit, silent on whose it is. A denial beside it
			// ("no new one was created") is of the repeat, not of the
			// commit the fact shows.
			sev, basis = atMost(info.Severity, SeverityWarning), BasisTentative
			said = "the reply says it already exists but not that this call's earlier attempt made it, nor that the outcome is unknown"
		case claims && s.Estimate.Unknown.Likely:
			// A definite outcome read confidently, but the estimate says
			// the reply probably states the outcome unknown (a part
			// stated as not done, of a write stated part by part): the
			// contradiction rests on a reading two readers disagree on.
			sev, basis = atMost(info.Severity, SeverityWarning), BasisTentative
			said += fmt.Sprintf(", though mcpchaos's estimate says it probably states the outcome unknown (%.2f, weighing most: %s)", s.Estimate.Unknown.P, quoteReply(s.Estimate.Unknown.Quote))
		case claims:
			// A definite outcome, read confidently, that the fault's
			// declared outcome contradicts: an error on facts.
		case s.Estimate.Unknown.Likely:
			// The rules found no statement that the outcome is unknown,
			// but the estimate says the reply probably makes one.
			sev, basis = SeverityInfo, BasisUnreadGuidance
			said = unreadGuidanceNote(s.Estimate.Unknown) + said
		case c.Committed > 0 && s.Outcome.State == reader.OutcomeNone && s.Estimate.Stated.Likely:
			// The upstream committed, the rules read no outcome, and the
			// estimate says the reply probably states one, unknown or
			// done ("we have it on our side"): after a commit either is
			// the truth.
			sev, basis = SeverityInfo, BasisUnreadGuidance
			said = unreadGuidanceNote(s.Estimate.Stated) + said
		case c.Committed > 0 && s.Outcome.State == reader.OutcomeNone && len(s.Next.Tools) > 0 &&
			(s.Retry.Kind == reader.DoNotRetry || s.Retry.Kind == reader.RetryNone):
			// The exchange shows the upstream committed, and the reply
			// sends the model to look it up without a repeat ("Don't
			// create another shipment; get_shipment will fetch the
			// label"): no duplicate can follow, and such replies mostly
			// say the write went through in words the rules missed.
			sev, basis = SeverityInfo, BasisUnreadGuidance
			said += fmt.Sprintf(" as far as mcpchaos reads it, but the upstream committed and the reply names a way to look it up with no repeat (%s), so this is not graded", sourceText(s.Next.Evidence))
		case s.Outcome.State != reader.OutcomeNone:
			sev, basis = atMost(info.Severity, SeverityWarning), BasisTentative
			said += " as far as mcpchaos reads it"
		case len(s.Next.Tools) > 0 || s.Retry.Kind == reader.RetryAfterCheck:
			sev, basis = atMost(info.Severity, SeverityWarning), BasisTentative
			said += fmt.Sprintf(" as far as mcpchaos reads it, though it names a way to check (%s)", sourceText(s.Next.Evidence))
		case s.Retry.Kind == reader.DoNotRetry || s.User.Set:
			// It ends the loop without a repeat; that it says nothing of
			// the outcome rests on the reader not finding a sentence.
			sev, basis = atMost(info.Severity, SeverityWarning), BasisTentative
			said += " as far as mcpchaos reads it, though it stops the repeat"
		case s.Estimate.Retry.Likely || s.Estimate.Next.Likely:
			// That it leaves nothing but a repeat rests on rules that
			// probably missed its guidance.
			sev, basis = atMost(info.Severity, SeverityWarning), BasisTentative
			said += " as far as mcpchaos reads it, though it probably gives guidance mcpchaos did not read"
		}
		out = append(out, gradedFinding(info, sev, basis, c,
			fmt.Sprintf("%s after %s hit the write (%s); %s: %s",
				callRef(*c), ruleList(c.Injections), outcomeList(c.Faults), said, quoteReply(c.Text))))
	}
	return out
}

// stateWords says an outcome state in evidence.
func stateWords(st reader.OutcomeState) string {
	if st == reader.OutcomeCommitted {
		return "was committed"
	}
	return "was not committed"
}

// statesCommitted reports whether the reply says the write happened and
// the upstream confirms it did: a server that saw the commit (a reply cut
// after its status line) knows the outcome, and saying so is the truth,
// not an ambiguity left unstated. A reply that says the thing is already
// there as this call's ("409: the order already exists for this key")
// says the same of a commit the upstream holds, whatever it adds about a
// second one.
func statesCommitted(c transcript.Call, s reader.Signals) bool {
	return c.Committed > 0 && (s.Outcome.State == reader.OutcomeCommitted || s.Outcome.Own)
}

// statesParts reports a reply that says which part of a partially applied
// write happened and which did not, after a fault that declares a partial
// write: that is the truth about it, not a definite outcome claimed.
func statesParts(c transcript.Call, s reader.Signals) bool {
	if !s.Outcome.Partial {
		return false
	}
	for _, f := range c.Faults {
		if f.Outcome == inject.OutcomePartiallyApplied {
			return true
		}
	}
	return false
}

// sourceText renders a signal's source for evidence: `sentence "…"`.
func sourceText(e reader.Evidence) string {
	return fmt.Sprintf("%s %s, %s", e.Source.Kind, quoteReply(e.Source.Quote), e.Confidence)
}

// checkNoRetryGuidance is MC005. Validation errors are left to MC011: the
// fix there is the arguments, not the retry policy.
func checkNoRetryGuidance(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		s := j.sigs[i]
		if c.Channel != transcript.ChannelToolError || j.in.ValidationCalls[c.N] {
			continue
		}
		var conf reader.Confidence
		ev := fmt.Sprintf("%s says neither \"do not retry\" nor a bounded retry: %s", callRef(*c), quoteReply(c.Text))
		switch s.Retry.Kind {
		case reader.DoNotRetry, reader.RetryBounded, reader.RetryAfterCheck:
			continue
		case reader.RetryUnbounded:
			conf = s.Retry.Confidence
			ev = fmt.Sprintf("%s says the failure is transient with no bound (%s)", callRef(*c), sourceText(s.Retry.Evidence))
		}
		sev, basis := absenceGrade(info, s, conf, s.Estimate.Retry.Likely)
		if basis == BasisUnreadGuidance {
			ev = unreadGuidanceNote(s.Estimate.Retry) + ev
		}
		out = append(out, gradedFinding(info, sev, basis, c, ev))
	}
	return out
}

// checkNoNextAction is MC006.
func checkNoNextAction(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		s := j.sigs[i]
		if c.Channel != transcript.ChannelToolError || len(s.Next.Tools) > 0 || len(s.Args) > 0 || s.User.Set {
			continue
		}
		ev := fmt.Sprintf("%s names no tool, argument or instruction for the user: %s", callRef(*c), quoteReply(c.Text))
		sev, basis := absenceGrade(info, s, 0, s.Estimate.Next.Likely)
		if basis == BasisUnreadGuidance {
			ev = unreadGuidanceNote(s.Estimate.Next) + ev
		}
		out = append(out, gradedFinding(info, sev, basis, c, ev))
	}
	return out
}

// checkSilentLoss is MC008: only on calls of a tool that writes, and only
// on calls a fault hit (see faultHit), so a success's own data ("HTTP
// 503" in a health check's result, a search result about 503 errors that
// was only delayed) is never graded. A read's upstream error returned as
// a success loses no data: the model reads the error in the text it was
// given, so it is no silent loss (the channel is still wrong for a
// host's dashboard, which MC008 does not claim to grade).
func checkSilentLoss(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		s := j.sigs[i]
		if c.Channel != transcript.ChannelSuccess || !j.writes[c.Tool] || !faultHit(*c) {
			continue
		}
		switch {
		case failedWrite(*c):
			out = append(out, gradedFinding(info, info.Severity, BasisFact, c,
				fmt.Sprintf("%s although %s (%s) and nothing committed upstream: %s",
					callRef(*c), ruleList(c.Injections), outcomeList(c.Faults), quoteReply(c.Text))))
		case (s.Upstream.Set || c.UpstreamErrorAsSuccess) && !outcomeDeclaredOpen(*c):
			// The driver's flag comes from the same reader; alone (a
			// hand-built record) it is a tentative reading.
			sev, basis := readingGrade(info, reader.Signals{Read: true}, s.Upstream.Confidence)
			out = append(out, gradedFinding(info, sev, basis, c,
				fmt.Sprintf("%s after %s reads as an upstream error (%s): %s",
					callRef(*c), ruleList(c.Injections), sourceText(s.Upstream.Evidence), quoteReply(c.Text))))
		}
	}
	return out
}

// outcomeDeclaredOpen reports a call whose faults all declare that the
// write committed (a lost reply, a delay) or that no one knows (an
// unknown outcome with no exchange to say): an upstream error the text
// then reports is no loss the run can show, and the model reads it in
// the text it was given. Only a failed write (failedWrite) or a fault
// with no declared outcome leaves MC008 to the reading.
func outcomeDeclaredOpen(c transcript.Call) bool {
	if len(c.Faults) == 0 {
		return false
	}
	for _, f := range c.Faults {
		if f.Outcome.Commits() != "yes" && f.Outcome != inject.OutcomeUnknown {
			return false
		}
	}
	return true
}

// checkAnnotations is MC009.
func checkAnnotations(j *judgeRun, info CheckInfo) []Finding {
	duplicated := ""
	for _, s := range effectCounts(j.in.SideEffects) {
		if s.Error == "" && s.Committed > s.Intended {
			duplicated = fmt.Sprintf("side effect %q committed %d (intended %d; %s)", s.Name, s.Committed, s.Intended, countSource(s))
			break
		}
	}
	repeats := map[string]int{} // tool → most calls with one argument set
	first := map[string]*transcript.Call{}
	perArgs := map[string]int{}
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		k := c.Tool + "\x00" + argsKey(c.Args)
		perArgs[k]++
		repeats[c.Tool] = max(repeats[c.Tool], perArgs[k])
		if first[c.Tool] == nil {
			first[c.Tool] = c
		}
	}
	var out []Finding
	for _, name := range sortedToolNames(first) {
		t, c := j.tools[name], first[name]
		switch {
		case t.Idempotent && duplicated != "" && repeats[name] > 1 && j.writes[name]:
			out = append(out, finding(info, info.Severity, c, "",
				fmt.Sprintf("%s is annotated idempotentHint, was called %d times with the same arguments, and %s", name, repeats[name], duplicated)))
		case t.ReadOnly && j.in.WriteTools[name]:
			out = append(out, finding(info, info.Severity, c, "",
				fmt.Sprintf("%s is annotated readOnlyHint but a side effect was committed during its calls", name)))
		}
	}
	return out
}

// checkUnsafe is MC010.
func checkUnsafe(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		if u := j.sigs[i].Unsafe; u.Set {
			sev, basis := readingGrade(info, j.sigs[i], u.Confidence)
			out = append(out, gradedFinding(info, sev, basis, c,
				fmt.Sprintf("%s invites an unsafe action (%s)", callRef(*c), sourceText(u.Evidence))))
		}
	}
	return out
}

// argsKey is a canonical rendering of arguments for grouping calls.
func argsKey(m map[string]any) string {
	keys := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%#v;", k, m[k])
	}
	return b.String()
}

func sortedToolNames(m map[string]*transcript.Call) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// outcomeList states the declared outcomes of a call's faults, for
// evidence: "outcome unknown to the server: committed_reply_lost".
func outcomeList(fs []transcript.InjectionRecord) string {
	if len(fs) == 0 {
		return "outcome not recorded"
	}
	parts := make([]string, 0, len(fs))
	for _, f := range fs {
		p := "outcome " + string(f.Outcome)
		if f.ServerKnows {
			p += ", known to the server"
		}
		if f.Hits == 0 {
			p += ", dials refused by the kernel (not counted)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}
