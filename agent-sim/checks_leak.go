package agentsim

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
)

// checkLeak is MC007. Two kinds of evidence, kept apart:
//   - facts: a value the run knows is internal (an upstream target or its
//     host name, a proxy address, an env value given to the server), and
//     secret-shaped tokens — flagged on every channel;
//   - the reader's generic leak candidates (stack traces, SQL, struct
//     dumps, paths…) — only on failure replies and on successes a fault
//     hit, never on a success payload's own data (a listing's paths, a
//     query's SQL, a resolved public IP).
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
			parts = append(parts, fmt.Sprintf("internal value %q the run gave the server", v))
			raise(info.Severity, BasisFact)
		}
		generic := guidanceChannel(c.Channel) || len(c.Injections) > 0
		for _, l := range s.Leaks {
			if l.Kind != reader.LeakSecret && !generic {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %q", l.Kind, l.Text))
			conf := reader.Tentative
			if confidentLeak[l.Kind] {
				conf = reader.Confident
			}
			read := s
			if l.Kind == reader.LeakSecret {
				read.Read = true // a token's shape needs no language
			}
			raise(readingGrade(info, read, conf))
		}
		if len(parts) == 0 {
			continue
		}
		ev := fmt.Sprintf("%s discloses %s", callRef(*c), strings.Join(parts, ", "))
		out = append(out, gradedFinding(info, sev, basis, c, ev))
	}
	return out
}

// confidentLeak are the leak kinds whose pattern is unmistakable in a
// failure reply; an IP or a path alone is often an id or a file the user
// named, so those are tentative (a warning) unless the run knows the
// value is internal.
var confidentLeak = map[string]bool{
	reader.LeakStackTrace: true, reader.LeakSQL: true, reader.LeakSQLState: true,
	reader.LeakStructDump: true, reader.LeakExceptionClass: true, reader.LeakSecret: true,
	reader.LeakHostPort: true, reader.LeakInternalHost: true,
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
