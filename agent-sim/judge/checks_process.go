package judge

import (
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"strings"
	"time"
)

// The checks that rest on what happened to the call rather than on what
// the server said: the server crashed (MC012), an upstream was held while
// the server had no deadline of its own (MC013), the reply came after the
// host gave up (MC014).

// processChecks are appended to the check table, in ID order.
func processChecks() []check {
	return []check{
		{CheckInfo{ID: "MC012", Title: "the server crashed during a call", Severity: SeverityError,
			Doc: "The server died while a call was in flight: the stdio process exited (a panic, an os.Exit, a signal) or the HTTP connection dropped with no status. " +
				"The evidence is the process's stderr from its panic on, or the transport's error. A crash ends the session: hosts mark the server disconnected, and some restart it once (the host profile's after_crash).",
			Hint: "Recover from panics in tool handlers and turn the failure into a tool error (isError) that says what happened and whether retrying can help; never exit the process on an upstream failure."},
			checkCrash},
		{CheckInfo{ID: "MC013", Title: "no deadline on an upstream", Severity: SeverityError,
			Doc: "A call got no reply within call_timeout, nor within the late grace after it, while a fault held one of its upstream requests (or connections) open past call_timeout: the server waited on the upstream for as long as the upstream took. " +
				"The fault layer's events are the evidence: the upstream, the rule, and how long the request was held.",
			Hint: "Set a deadline on every upstream call shorter than the client's timeout, and report the timeout as a tool error (for a write: the outcome is unknown, and which tool checks it)."},
			checkNoDeadline},
		{CheckInfo{ID: "MC014", Title: "late reply: the server answered after call_timeout", Severity: SeverityWarning,
			Doc: "A call got no reply within call_timeout, so the host gave up and the model saw no_response; the driver kept the request open for the late grace and the server's reply arrived then. " +
				"The reply is recorded with the call (late: channel, text, elapsed_ms). Whether it is a problem depends on the host's timeout, which the scenario's call_timeout stands for.",
			Hint: "Make the server answer within the client's timeout (deadlines on upstream calls shorter than it, reported as a tool error), or raise call_timeout above the time the server needs."},
			checkLate},
	}
}

// checkCrash is MC012.
func checkCrash(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		if c.Crash == nil {
			continue
		}
		var ev string
		if c.Crash.Exit != "" {
			ev = fmt.Sprintf("%s: the server process ended (%s)", callRef(*c), c.Crash.Exit)
			if c.Crash.StderrTail != "" {
				ev += "; stderr: " + oneLine(c.Crash.StderrTail, crashEvidenceLines)
			} else {
				ev += "; it wrote nothing to stderr"
			}
		} else {
			ev = fmt.Sprintf("%s: the connection to the server dropped: %s", callRef(*c), oneLine(c.Crash.TransportError, crashEvidenceLines))
		}
		switch {
		case c.Crash.Host == transcript.HostReconnected:
			ev += "; the host restarted the server"
		case c.Crash.Host == transcript.HostStopped:
			ev += "; the host stopped"
		case c.Crash.Host != "":
			ev += "; " + c.Crash.Host
		}
		out = append(out, finding(info, info.Severity, c, "", ev))
	}
	return out
}

// Evidence quotes the start of a crash's stderr excerpt (the panic
// message and the top frames); the call record keeps the whole excerpt.
const (
	crashEvidenceLines = 6
	crashEvidenceBytes = 600
)

// oneLine quotes the first n non-empty lines of a multi-line text (a
// stack trace) on one line, " | " between them, at most
// crashEvidenceBytes.
func oneLine(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && len(lines) < n {
			lines = append(lines, l)
		}
	}
	return fmt.Sprintf("%q", transcript.ClipBytes(strings.Join(lines, " | "), crashEvidenceBytes, "…"))
}

// checkNoDeadline is MC013.
func checkNoDeadline(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		h, ok := transcript.HeldPastDeadline(*c)
		if c.Channel != transcript.ChannelNoResponse || c.Late != nil || !ok {
			continue
		}
		f := finding(info, info.Severity, c, "", fmt.Sprintf(
			"upstream %q held for %s by rule %q (%s) while %s stayed open past call_timeout%s; no reply came within the late grace either",
			h.Upstream, secondsText(h.HeldMS), h.Rule, h.Fault, callRef(*c), timeoutNote(j.in.CallTimeout)))
		f.Hint = fmt.Sprintf("Set a deadline on calls to %q shorter than the client's timeout%s and report the timeout as a tool error (for a write: the outcome is unknown, and which tool checks it).",
			h.Upstream, timeoutNote(j.in.CallTimeout))
		out = append(out, f)
	}
	return out
}

// checkLate is MC014.
func checkLate(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		if c.Late == nil {
			continue
		}
		what := string(c.Late.Channel)
		if c.Late.Channel == transcript.ChannelProtocolError {
			what = fmt.Sprintf("protocol_error %d", c.Late.Code)
		}
		f := finding(info, info.Severity, c, "", fmt.Sprintf(
			"%s: the server answered after %s%s with %s %s; the host had given up and the model saw no_response",
			callRef(*c), secondsText(c.Late.ElapsedMS), timeoutNote(j.in.CallTimeout), what, quoteReply(c.Late.Text)))
		f.Hint = fmt.Sprintf("Raise call_timeout above %s, or make the server answer sooner: put a deadline shorter than the client's timeout on its upstream calls and report the timeout as a tool error.",
			secondsText(c.Late.ElapsedMS))
		out = append(out, f)
	}
	return out
}

// timeoutNote is " (call_timeout 5s)", or nothing when unknown.
func timeoutNote(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(" (call_timeout %s)", d)
}

// secondsText renders milliseconds as seconds for evidence: "7.3 s".
func secondsText(ms int64) string {
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// explainedByProcess reports whether a run that spent its budget is
// explained by MC012–MC014 rather than by what the server said, so that
// MC002 stays silent: the run's last call crashed the server (the run
// ended because it died), or every call either succeeded or got no reply
// for a reason one of those checks reports (it crashed, answered late, or
// was held on an upstream past call_timeout) — and at least one did. A
// single reply the server did send that failed (a tool error, a protocol
// error, a success reading as an upstream error) keeps MC002: the loop is
// then the server's words too.
func (j *judgeRun) explainedByProcess() bool {
	n := len(j.in.Calls)
	if n == 0 {
		return false
	}
	if j.in.Calls[n-1].Crash != nil {
		return true
	}
	explained := 0
	for _, c := range j.in.Calls {
		_, held := transcript.HeldPastDeadline(c)
		switch {
		case c.Crash != nil, c.Late != nil, c.Channel == transcript.ChannelNoResponse && held:
			explained++
		case c.Channel == transcript.ChannelSuccess && !c.UpstreamErrorAsSuccess:
		default:
			return false
		}
	}
	return explained > 0
}
