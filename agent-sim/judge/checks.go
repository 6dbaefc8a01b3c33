package judge

import (
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// checkTable is the single list of checks, in ID order. docs/checks.md
// explains each with a bad and a good reply; a test keeps the two in step.
func checkTable() []check {
	return append([]check{
		{CheckInfo{ID: "MC001", Title: "upstream failure reported as a protocol error", Severity: SeverityError,
			Doc: "A call whose upstream traffic was faulted or reached the upstream was answered with a JSON-RPC error. " +
				"The tool ran and had a verdict, but a protocol error is read by the client library: many hosts show the model nothing or \"tool call failed\", and the model retries without end.",
			Hint: "Return the failure as a result with isError: true and a message the model can act on; keep JSON-RPC errors for unknown tools, schema violations, uninitialised sessions and cancelled requests."},
			checkProtocolError},
		{CheckInfo{ID: "MC002", Title: "retry loop: the agent did not converge within its budget", Severity: SeverityError,
			Doc:  "The scripted agent spent its whole call budget without finishing. Nothing the server said gave it a reason to stop: no reply reached it, or the reply was vague or invited retries.",
			Hint: "Give the model a fact that ends the loop: say whether retrying can help (\"do not retry\", or a bounded retry) and what to do instead, in a tool error that every host shows."},
			checkRetryLoop},
		{CheckInfo{ID: "MC003", Title: "duplicated side effect: more committed than intended", Severity: SeverityError,
			Doc:  "More side effects were committed upstream than the scenario intended: a retry repeated a write that had already happened. Counted by the run's probes when it has one (the upstream's state), else by its matchers, with identical PUT/PATCH/DELETE requests folded into one effect; the evidence names the source.",
			Hint: "Make the write idempotent (an idempotency key derived from the arguments, or a dedupe on a natural key), and state an unknown outcome so the model checks before retrying."},
			checkDuplicate},
		{CheckInfo{ID: "MC004", Title: "ambiguous outcome not stated as unknown", Severity: SeverityError,
			Doc:  "A fault left a writing tool not knowing whether its write committed, as the fault's declared outcome says (a lost or cut reply, a reset, a hang, a black-holed dial, an error after the upstream committed); the tool error did not say the outcome is unknown, or claimed a definite failure. A reply that says the write went through passes when the upstream did commit it: the server saw the commit.",
			Hint: "Say that the write may or may not have happened, name the tool that checks (\"call find_shipments with the order_id\"), and say when repeating the call is safe."},
			checkAmbiguous},
		{CheckInfo{ID: "MC005", Title: "tool error gives no retry guidance", Severity: SeverityWarning,
			Doc:  "A tool error says neither that repeating the call is pointless (\"do not retry\", \"permanent\") nor how often or when it may be repeated (\"retry once\", \"try again in 30 seconds\"). The model has to guess, and models guess \"retry\".",
			Hint: "End the message with explicit guidance: \"Do not retry this call unchanged.\" or \"Retry once after a short pause; if it fails again, stop.\""},
			checkNoRetryGuidance},
		{CheckInfo{ID: "MC006", Title: "tool error names no next action", Severity: SeverityWarning,
			Doc:  "A tool error names no tool to call next, no argument to change and no instruction beyond retrying (such as telling the user). \"Invoice not found\" is true and leaves the model one hypothesis: the lookup is flaky.",
			Hint: "Name the next action: the tool that resolves the situation and its arguments (\"call list_ledgers, then fetch_invoice with the ledger argument\"), or what to tell the user."},
			checkNoNextAction},
		{CheckInfo{ID: "MC007", Title: "leak: internals in a reply", Severity: SeverityError,
			Doc:  "A reply (tool error, protocol error message or success) discloses internals: a stack trace, an internal host or IP:port, SQL or a SQLSTATE, a file path, a struct dump, an exception class or a secret-like token. Replies enter the model's context and the user's transcript.",
			Hint: "Log the detail server-side with a correlation id; tell the model what is true about the world in its own terms (\"the carrier is unreachable\")."},
			checkLeak},
		{CheckInfo{ID: "MC008", Title: "success reported although the upstream write failed or was cut", Severity: SeverityError,
			Doc:  "A call returned success while a fault whose declared outcome is that the write did not commit hit it (or was in force, as an upstream refusing every dial) and nothing committed upstream, or its success text is plainly an upstream error (\"502 Bad Gateway\"). The model reports done; the data is lost silently.",
			Hint: "Check the upstream's status and body before reporting success; report a failed or cut write as a tool error with what is known."},
			checkSilentLoss},
		{CheckInfo{ID: "MC009", Title: "annotations contradict behaviour", Severity: SeverityError,
			Doc:  "A tool annotated idempotentHint was repeated with the same arguments and side effects were duplicated; or a tool annotated readOnlyHint wrote (a side-effect matcher fired during its calls). Hosts and models trust annotations to decide what is safe to repeat.",
			Hint: "Make the handler match the annotation (dedupe repeated writes), or correct the annotation."},
			checkAnnotations},
		{CheckInfo{ID: "MC010", Title: "message invites an unsafe action", Severity: SeverityError,
			Doc:  "A reply tells the model to force past a safety check (\"retry with force: true\") or to try again after saying the failure is permanent. Imperatives in replies get obeyed.",
			Hint: "Write only the imperative you want executed; never suggest force or override flags to a model, and do not pair \"permanent\" with \"try again\"."},
			checkUnsafe},
		{CheckInfo{ID: "MC011", Title: "input-validation failure in the wrong channel for the protocol version", Severity: SeverityError,
			Doc: "A call the scenario marked as invalid input was answered in a channel the negotiated protocol version does not ask for. Up to 2025-06-18 a JSON-RPC -32602 is right (an isError result is noted as info); from 2025-11-25 an isError result is preferred so the model can correct its arguments (-32602 is tolerated, noted as info). " +
				"-32603 (internal error), other codes, success, or no answer are wrong in every version.",
			Hint: "Validate arguments and answer schema violations with -32602 (2025-06-18 and earlier) or an isError result naming the bad argument (2025-11-25 and later); never -32603."},
			checkValidation},
	}, processChecks()...)
}

// checkProtocolError is MC001.
func checkProtocolError(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		if c.Channel != transcript.ChannelProtocolError || j.in.ValidationCalls[c.N] {
			continue
		}
		var traffic string
		switch {
		case len(c.Injections) > 0:
			traffic = fmt.Sprintf("was hit by %s (%s)", ruleList(c.Injections), outcomeList(c.Faults))
		case c.Exchanges > 0:
			traffic = fmt.Sprintf("made %d upstream exchange(s)", c.Exchanges)
		default:
			continue
		}
		out = append(out, finding(info, info.Severity, c, "",
			fmt.Sprintf("%s %s answered a call whose upstream traffic %s", callRef(*c), quoteReply(c.Text), traffic)))
	}
	return out
}

// checkRetryLoop is MC002.
func checkRetryLoop(j *judgeRun, info CheckInfo) []Finding {
	n := len(j.in.Calls)
	if j.in.Converged || j.in.Budget <= 0 || n < j.in.Budget || j.explainedByProcess() {
		return nil
	}
	counts := map[string]int{}
	top := ""
	for _, c := range j.in.Calls {
		counts[c.Tool]++
		if counts[c.Tool] > counts[top] || counts[c.Tool] == counts[top] && c.Tool < top {
			top = c.Tool
		}
	}
	last := j.in.Calls[n-1]
	seen := "nothing reached the model"
	if last.Observation.Seen {
		seen = "the model read " + quoteReply(last.Observation.Text)
	}
	ev := fmt.Sprintf("%d calls with a budget of %d; %s called %d times; last: %s, %s", n, j.in.Budget, top, counts[top], callRef(last), seen)
	if s := j.sigs[n-1]; s.Read && (s.Estimate.Retry.Likely || s.Estimate.Next.Likely) {
		// The loop happened, but that nothing gave the agent a reason to
		// stop rests on the simulator's reading, and its reader probably
		// missed guidance in the last reply: the loop may be its own.
		l := s.Estimate.Retry
		if !l.Likely {
			l = s.Estimate.Next
		}
		f := finding(info, atMost(info.Severity, SeverityWarning), &last, top,
			ev+fmt.Sprintf("; the last reply probably gives guidance the simulated agent did not read (estimate %.2f, weighing most: %s)", l.P, quoteReply(l.Quote)))
		f.Basis = BasisTentative
		return []Finding{f}
	}
	return []Finding{finding(info, info.Severity, &last, top, ev)}
}

// checkDuplicate is MC003.
func checkDuplicate(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for _, s := range effectCounts(j.in.SideEffects) {
		if s.Error != "" || s.Committed <= s.Intended {
			continue
		}
		out = append(out, finding(info, info.Severity, nil, j.committingTool(),
			fmt.Sprintf("side effect %q: intended %d, committed %d (%s)", s.Name, s.Intended, s.Committed, countSource(s))))
	}
	return out
}

// committingTool is the writing tool most likely behind a side effect:
// the one with the most calls whose upstream traffic committed, else the
// most-called writing tool.
func (j *judgeRun) committingTool() string {
	best, bestN := "", 0
	for _, pass := range []bool{true, false} {
		counts := map[string]int{}
		for _, c := range j.in.Calls {
			if j.writes[c.Tool] && (!pass || c.Committed > 0) {
				counts[c.Tool]++
				if counts[c.Tool] > bestN || counts[c.Tool] == bestN && c.Tool < best {
					best, bestN = c.Tool, counts[c.Tool]
				}
			}
		}
		if best != "" {
			return best
		}
	}
	return ""
}

// countSource says what a count rests on, for a finding's evidence.
func countSource(s transcript.SideEffectCount) string {
	switch {
	case s.Source == "probe":
		return "source: probe of the upstream's state"
	case s.Folded > 0:
		return fmt.Sprintf("source: exchanges, %d identical PUT/PATCH/DELETE repeat(s) folded", s.Folded)
	}
	return "source: exchanges"
}

// effectCounts are the counts MC003 and MC009 rest on: the probes' when
// the run has a probe that read the upstream's state, since a probe
// counts effects and a matcher requests; every count otherwise.
func effectCounts(all []transcript.SideEffectCount) []transcript.SideEffectCount {
	var probes []transcript.SideEffectCount
	for _, s := range all {
		if s.Source == "probe" && s.Error == "" {
			probes = append(probes, s)
		}
	}
	if len(probes) > 0 {
		return probes
	}
	return all
}
