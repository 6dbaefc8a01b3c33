package judge

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// unreadNote starts the evidence of a finding on a reply that could not
// be read.
const unreadNote = "mcpchaos could not read this reply, so this is not graded: "

// readingGrade is the severity and basis of a finding that rests on
// reading reply s with confidence conf (0: the finding rests on the
// absence of a signal): the check's own severity for a confident
// reading, at most a warning for a tentative one, info when the reply
// could not be read.
func readingGrade(info CheckInfo, s reader.Signals, conf reader.Confidence) (Severity, Basis) {
	switch {
	case !s.Read:
		return SeverityInfo, BasisUnread
	case conf >= reader.Confident:
		return info.Severity, BasisConfident
	}
	return atMost(info.Severity, SeverityWarning), BasisTentative
}

// atMost caps a severity.
func atMost(s, limit Severity) Severity {
	if s.Rank() > limit.Rank() {
		return limit
	}
	return s
}

// absenceGrade is readingGrade for a finding that claims a kind of
// guidance is absent: info when the reader's estimate says the reply
// probably gives it (likely), since the claim would rest on rules that
// did not read it.
func absenceGrade(info CheckInfo, s reader.Signals, conf reader.Confidence, likely bool) (Severity, Basis) {
	if s.Read && likely {
		return SeverityInfo, BasisUnreadGuidance
	}
	return readingGrade(info, s, conf)
}

// unreadGuidanceNote starts the evidence of a finding withheld because
// the estimate expects guidance there.
func unreadGuidanceNote(l reader.Likelihood) string {
	return fmt.Sprintf("mcpchaos did not read what this reply probably says (estimate %.2f, weighing most: %s), so this is not graded: ", l.P, quoteReply(l.Quote))
}

// gradedFinding builds a finding with its basis; an unread basis marks
// the evidence.
func gradedFinding(info CheckInfo, sev Severity, basis Basis, c *transcript.Call, evidence string) Finding {
	if basis == BasisUnread {
		evidence = unreadNote + evidence
	}
	f := finding(info, sev, c, "", evidence)
	f.Basis = basis
	return f
}

// minInternalLen is the shortest value the run flags as internal: a
// shorter one ("prod", "eu1") matches ordinary text by chance.
const minInternalLen = 6

// internalValues prepares the values a run knows are internal for
// matching: each value, and the host name of each address or URL, minus
// values too short or too common to mean anything (a plain lowercase
// word, a number, a loopback or unspecified address, which reveal no
// topology).
func internalValues(raw []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) < minInternalLen || seen[v] || commonValue(v) {
			return
		}
		seen[v] = true
		out = append(out, v)
	}
	for _, v := range raw {
		add(v)
		if u, err := url.Parse(v); err == nil && u.Host != "" {
			add(u.Host)
			add(u.Hostname())
		} else if h, _, err := net.SplitHostPort(v); err == nil {
			add(h)
		}
	}
	return out
}

// commonValue reports whether v is too ordinary to flag: a word, a
// number, a boolean, or an address that names no machine.
func commonValue(v string) bool {
	letters, digits := true, true
	for _, r := range v {
		letters = letters && r >= 'a' && r <= 'z'
		digits = digits && (r >= '0' && r <= '9' || r == '.')
	}
	if letters || digits && !strings.Contains(v, ".") {
		return true
	}
	// A bare loopback or unspecified address names no machine; with a
	// port it is an address the run created, and counts.
	h := strings.Trim(v, "[]")
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback() || ip.IsUnspecified()
	}
	return h == "localhost"
}

// internalIn returns the internal values text contains as whole tokens
// (not "10.0.3.70" for "10.0.3.7"), longest first, leaving out a value
// inside one already found (the host of a URL found whole).
func internalIn(text string, values []string) []string {
	if len(text) > maxInternalScan {
		text = text[:maxInternalScan]
	}
	values = slices.Clone(values)
	slices.SortStableFunc(values, func(a, b string) int { return len(b) - len(a) })
	var out []string
	for _, v := range values {
		if slices.ContainsFunc(out, func(o string) bool { return strings.Contains(o, v) }) {
			continue
		}
		for off := 0; off < len(text); {
			i := strings.Index(text[off:], v)
			if i < 0 {
				break
			}
			s, e := off+i, off+i+len(v)
			if tokenEdge(text, s-1, -1) && tokenEdge(text, e, 1) {
				out = append(out, v)
				break
			}
			off = s + 1
		}
		if !slices.Contains(out, v) && splitHostPort(text, v) {
			out = append(out, v)
		}
	}
	return out
}

// splitHostPort reports an address v ("127.0.0.1:27124") spelled as its
// host and port apart, as client libraries print a connection:
// "HTTPSConnectionPool(host='127.0.0.1', port=27124)", "host: db1, port:
// 5432". The port must follow the host within a few words.
func splitHostPort(text, v string) bool {
	i := strings.LastIndexByte(v, ':')
	if i <= 0 || i == len(v)-1 || strings.Contains(v[:i], ":") {
		return false
	}
	host, port := v[:i], v[i+1:]
	for off := 0; off < len(text); {
		k := strings.Index(text[off:], host)
		if k < 0 {
			return false
		}
		s, e := off+k, off+k+len(host)
		off = s + 1
		if !tokenEdge(text, s-1, -1) || !tokenEdge(text, e, 1) {
			continue
		}
		rest := text[e:min(len(text), e+40)]
		p := strings.Index(rest, "port")
		if p < 0 {
			continue
		}
		after := strings.TrimLeft(rest[p+len("port"):], "=: '\"")
		if strings.HasPrefix(after, port) && (len(after) == len(port) || !isDigitByte(after[len(port)])) {
			return true
		}
	}
	return false
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

// maxInternalScan bounds the text searched for internal values.
const maxInternalScan = 64 << 10

// tokenEdge reports whether position i (the byte just outside a match,
// in direction dir) ends a token: the text's end, or a byte that cannot
// continue a name or an address ("." only when no name follows it).
func tokenEdge(text string, i, dir int) bool {
	if i < 0 || i >= len(text) {
		return true
	}
	c := text[i]
	if c == '.' {
		j := i + dir
		return j < 0 || j >= len(text) || !nameByte(text[j])
	}
	return !nameByte(c)
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
