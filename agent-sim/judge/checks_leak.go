package judge

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// checkLeak is MC007. Two kinds of evidence, kept apart:
//   - facts: a value the run knows is internal (an upstream target or its
//     host name, a proxy address, an env value given to the server), and
//     secret-shaped tokens — flagged on every channel. Addresses and host
//     names count only as facts: an IP in a dial error may be the
//     container's own or a public API's;
//   - the reader's generic candidates that disclose code (stack traces,
//     SQL and SQLSTATE, struct dumps, exception classes, source
//     locations) — only on failure replies and on successes a fault hit,
//     never on a success payload's own data (a listing's paths, a query's
//     SQL, a job's log): the reader keeps code candidates on a success only
//     when its text reads as a failure folded into a result.
func checkLeak(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		if !serverText(c.Channel) {
			continue
		}
		s := j.sigs[i]
		var parts []string
		sev, basis := SeverityInfo, BasisUnread
		raise := func(sv Severity, b Basis) {
			if sv.Rank() > sev.Rank() || sv == sev && basisRank(b) > basisRank(basis) {
				sev, basis = sv, b
			}
		}
		for _, v := range internalIn(c.Text+"\n"+string(c.Structured), j.internal) {
			parts = append(parts, fmt.Sprintf("internal value %q (known to the run)", v))
			raise(info.Severity, BasisFact)
		}
		generic := transcript.GuidanceChannel(c.Channel) || faultHit(*c)
		for _, l := range s.Leaks {
			switch {
			case l.Kind == reader.LeakSecret && c.Channel == transcript.ChannelSuccess && !faultHit(*c) &&
				(readsSecrets(c.Tool) || strings.HasPrefix(l.Text, "eyJ")):
				// A bare JWT in a success no fault hit is a token the tool
				// hands back (a job's, a session's), as a secrets tool's
				// answer is its secret.
				// A secrets tool's answer is the secret it was asked for
				// (vault's read_secret): the payload's own data.
			case l.Kind == reader.LeakSecret:
				// A token's shape needs no language and no fault.
				parts = append(parts, fmt.Sprintf("%s %q", l.Kind, l.Text))
				raise(info.Severity, BasisConfident)
			case generic && codeLeak(l):
				parts = append(parts, fmt.Sprintf("%s %q", l.Kind, l.Text))
				raise(readingGrade(info, s, reader.Confident))
			}
		}
		if len(parts) == 0 {
			continue
		}
		ev := fmt.Sprintf("%s discloses %s", callRef(*c), strings.Join(parts, ", "))
		out = append(out, gradedFinding(info, sev, basis, c, ev))
	}
	return out
}

// codeLeak reports whether a generic candidate discloses the server's
// code: a stack trace, SQL, a SQLSTATE, a struct dump, an exception
// class, a source location ("handler.go:42"), or a path of the server's
// own files. The reader already leaves out a bare path when the tool
// takes a path-like argument: in a file tool's failure it is most often
// the path the caller asked for ("ENOENT: no such file …").
func codeLeak(l reader.Leak) bool {
	switch l.Kind {
	case reader.LeakStackTrace, reader.LeakSQL, reader.LeakSQLState, reader.LeakStructDump, reader.LeakExceptionClass,
		reader.LeakFilePath:
		return true
	}
	return false
}

// faultHit reports whether a fault changed what the call's upstream
// traffic did: an outcome other than delivered (a delay changes nothing
// the server reads). A call with injections but no declared outcomes (a
// transcript from before outcomes were recorded) counts as hit.
func faultHit(c transcript.Call) bool {
	if len(c.Faults) == 0 {
		return len(c.Injections) > 0
	}
	for _, f := range c.Faults {
		if f.Outcome != inject.OutcomeDelivered {
			return true
		}
	}
	return false
}

// basisRank orders bases by firmness.
func basisRank(b Basis) int {
	switch b {
	case BasisFact:
		return 3
	case BasisConfident:
		return 2
	case BasisTentative:
		return 1
	}
	return 0
}

// readsSecrets reports a tool whose name says it hands out secrets:
// read_secret, get_credentials, reveal_api_key.
func readsSecrets(tool string) bool {
	t := strings.ToLower(tool)
	return strings.Contains(t, "secret") || strings.Contains(t, "credential") || strings.Contains(t, "password") ||
		strings.Contains(t, "api_key") || strings.Contains(t, "apikey") || strings.Contains(t, "token")
}
