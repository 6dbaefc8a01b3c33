package agentsim

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

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
func (j *judgeRun) ambiguousFault(c CallRecord) bool {
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
// or only delays does not count.
func failedWrite(c CallRecord) bool {
	if c.Committed > 0 {
		return false
	}
	if len(c.Faults) == 0 {
		return len(c.Injections) > 0
	}
	for _, f := range c.Faults {
		if f.Outcome != inject.OutcomeDelivered && f.Outcome.Commits() != "yes" {
			return true
		}
	}
	return false
}

// checkAmbiguous is MC004.
func checkAmbiguous(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		if c.Channel != ChannelToolError || !j.writes[c.Tool] || j.in.ValidationCalls[c.N] ||
			len(c.Injections) == 0 || j.feats[i].OutcomeUnknown != "" || !j.ambiguousFault(*c) ||
			statesCommitted(*c) {
			continue
		}
		out = append(out, finding(info, info.Severity, c, "",
			fmt.Sprintf("%s after %s hit the write (%s); the reply does not say the outcome is unknown: %s",
				callRef(*c), ruleList(c.Injections), outcomeList(c.Faults), quoteReply(c.Text))))
	}
	return out
}

// committedRE says a write went through ("the carrier accepted the
// shipment", "the order was created").
var committedRE = regexp.MustCompile(`(?i)\b(accepted|created|committed|recorded|placed|booked)\b.{0,40}\b(but|however)\b|\b(was|were|has been|have been) (accepted|created|committed|recorded|placed|booked)\b`)

// statesCommitted reports whether the reply says the write happened and
// the upstream confirms it did: a server that saw the commit (a reply cut
// after its status line) knows the outcome, and saying so is the truth,
// not an ambiguity left unstated.
func statesCommitted(c CallRecord) bool {
	return c.Committed > 0 && committedRE.MatchString(c.Text)
}

// checkNoRetryGuidance is MC005. Validation errors are left to MC011: the
// fix there is the arguments, not the retry policy.
func checkNoRetryGuidance(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		f := j.feats[i]
		if c.Channel != ChannelToolError || j.in.ValidationCalls[c.N] || f.DoNotRetry != "" || f.RetryAfter != "" {
			continue
		}
		ev := fmt.Sprintf("%s says neither \"do not retry\" nor a bounded retry: %s", callRef(*c), quoteReply(c.Text))
		if f.Transient != "" {
			ev = fmt.Sprintf("%s says the failure is transient with no bound: %s", callRef(*c), quoteReply(f.Transient))
		}
		out = append(out, finding(info, info.Severity, c, "", ev))
	}
	return out
}

// checkNoNextAction is MC006.
func checkNoNextAction(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		if c.Channel != ChannelToolError || nextActionPhrase(j.feats[i]) != "" {
			continue
		}
		out = append(out, finding(info, info.Severity, c, "",
			fmt.Sprintf("%s names no tool, argument or instruction: %s", callRef(*c), quoteReply(c.Text))))
	}
	return out
}

// checkLeak is MC007.
func checkLeak(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		leaks := j.feats[i].Leaks
		if len(leaks) == 0 {
			continue
		}
		kinds := make([]string, 0, len(leaks))
		for _, l := range leaks {
			kinds = append(kinds, fmt.Sprintf("%s %q", l.Kind, l.Text))
		}
		out = append(out, finding(info, info.Severity, c, "",
			fmt.Sprintf("%s discloses %s", callRef(*c), strings.Join(kinds, ", "))))
	}
	return out
}

// checkSilentLoss is MC008.
func checkSilentLoss(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		if c.Channel != ChannelSuccess {
			continue
		}
		var ev string
		switch up := j.feats[i].UpstreamError; {
		case c.UpstreamErrorAsSuccess || up != "":
			if up == "" {
				up = "an upstream error"
			}
			ev = fmt.Sprintf("%s reads as %q: %s", callRef(*c), up, quoteReply(c.Text))
		case j.writes[c.Tool] && failedWrite(*c):
			ev = fmt.Sprintf("%s although %s (%s) and nothing committed upstream: %s",
				callRef(*c), ruleList(c.Injections), outcomeList(c.Faults), quoteReply(c.Text))
		default:
			continue
		}
		out = append(out, finding(info, info.Severity, c, "", ev))
	}
	return out
}

// checkAnnotations is MC009.
func checkAnnotations(j *judgeRun, info CheckInfo) []Finding {
	duplicated := ""
	for _, s := range effectCounts(j.in.SideEffects) {
		if s.Error == "" && s.Committed > s.Intended {
			duplicated = fmt.Sprintf("side effect %q committed %d (intended %d; %s)", s.Name, s.Committed, s.Intended, s.sourceText())
			break
		}
	}
	repeats := map[string]int{} // tool → most calls with one argument set
	first := map[string]*CallRecord{}
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
		if u := j.feats[i].Unsafe; u != "" {
			out = append(out, finding(info, info.Severity, c, "",
				fmt.Sprintf("%s invites an unsafe action: %s", callRef(*c), quoteReply(u))))
		}
	}
	return out
}

// argsKey is a canonical rendering of arguments for grouping calls.
func argsKey(m map[string]any) string {
	keys := sortedHintKeys(m)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%#v;", k, m[k])
	}
	return b.String()
}

func sortedToolNames(m map[string]*CallRecord) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// outcomeList states the declared outcomes of a call's faults, for
// evidence: "outcome unknown to the server: committed_reply_lost".
func outcomeList(fs []InjectionRecord) string {
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
