package reader

import (
	"net/netip"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Leak kinds, as [Leak.Kind] reports them.
const (
	LeakStackTrace     = "stack_trace"
	LeakHostPort       = "host_port"
	LeakIP             = "ip"
	LeakInternalHost   = "internal_host"
	LeakSQL            = "sql"
	LeakSQLState       = "sqlstate"
	LeakFilePath       = "file_path"
	LeakStructDump     = "struct_dump"
	LeakExceptionClass = "exception_class"
	LeakSecret         = "secret"
)

// leakPattern is one heuristic; group, when > 0, is the submatch that is
// the leak (the rest is context that anchors it). mixed asks the match to
// hold a digit and a letter: a value after "token:" or "password=" is a
// secret only if it does not read as a word ("token: required").
type leakPattern struct {
	kind  string
	re    *regexp.Regexp
	group int
	mixed bool
}

// leakPatterns are checked in order; docs/reader.md lists them. A match
// inside a longer match already found (an IP inside host:port, a path
// inside a stack frame) is not reported again.
var leakPatterns = []leakPattern{
	// Stack traces: Go, Python, Java, JavaScript.
	{LeakStackTrace, regexp.MustCompile(`goroutine \d+ \[[a-z ]+\]:|\bpanic: [^\n]{0,100}|\S+\.go:\d+ \+0x[0-9a-f]+|\bruntime error: [^\n]{0,80}`), 0, false},
	{LeakStackTrace, regexp.MustCompile(`Traceback \(most recent call last\):|File "[^"\n]+", line \d+`), 0, false},
	{LeakStackTrace, regexp.MustCompile(`\bat [\w$.<>]+\([\w$]+\.(java|kt|scala):\d+\)|Exception in thread "[^"]*"`), 0, false},
	{LeakStackTrace, regexp.MustCompile(`\bat (?:async )?(?:[\w$.<>\[\] ]+ )?\(?(?:file://)?[\w./\\:@-]+\.(?:js|mjs|cjs|ts):\d+:\d+\)?`), 0, false},
	// Secrets before hosts: a token may contain dots and colons.
	{LeakSecret, regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}|\bxox[bpas]-[A-Za-z0-9-]{10,}|\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}`), 0, false},
	{LeakSecret, regexp.MustCompile(`(?i)\b(?:api[_-]?key|access[_-]?key|secret(?:[_-]?key)?|token|auth[_-]?token|authorization)["']?\s*[:=]\s*["']?(?:bearer\s+)?([A-Za-z0-9+/_.=-]{16,})|\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), 1, true},
	{LeakSecret, regexp.MustCompile(`(?i)\b(?:password|passwd|pwd)["']?\s*[:=]\s*["']?([^\s"',;]{4,})`), 1, true},
	// Source locations ("handler.go:42") before host:port, which they
	// resemble.
	{LeakFilePath, regexp.MustCompile(`\b[\w/.-]*\w\.(?:go|py|js|mjs|ts|java|kt|rb|rs|php|cs|cpp|c|h|scala|ex|exs):\d+\b`), 0, false},
	// Addresses.
	{LeakHostPort, regexp.MustCompile(`(?i)\b(?:\d{1,3}(?:\.\d{1,3}){3}|localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)+):\d{2,5}\b|\[[0-9a-f:]+\]:\d{2,5}\b`), 0, false},
	{LeakInternalHost, regexp.MustCompile(`(?i)\b(?:[a-z0-9-]+\.)+(?:internal|local|localdomain|lan|corp|intranet|intra|svc|cluster\.local)\b|\blocalhost\b`), 0, false},
	{LeakIP, regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}\b`), 0, false},
	{LeakIP, regexp.MustCompile(`(?i)[0-9a-f:]*::[0-9a-f:]*[0-9a-f]|\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b`), 0, false},
	// Databases.
	{LeakSQLState, regexp.MustCompile(`(?i)\bsqlstate\s*[:=\[(]?\s*[0-9A-Z]{5}\b`), 0, false},
	{LeakSQL, regexp.MustCompile(`\bSELECT\s+[\w*,. ()]+?\s+FROM\s+\w+|\bINSERT\s+INTO\s+\w+|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\s+\w+|\b(?:CREATE|DROP|ALTER)\s+TABLE\s+\w+|\bWHERE\s+\w+\s*(?:=|IN\s*\(|LIKE)`), 0, false},
	{LeakSQL, regexp.MustCompile(`\bselect\s+[\w*,. ]+\s+from\s+\w+\s+where\b|\binsert\s+into\s+\w+\s*\(|\bupdate\s+\w+\s+set\s+\w+\s*=|\bdelete\s+from\s+\w+\s+where\b`), 0, false},
	{LeakSQL, regexp.MustCompile(`(?i)\bpq: [^\n]{0,80}|\brelation "[^"]+" does not exist|\bsyntax error at or near "[^"]*"|\bERROR \d{4} \([0-9A-Z]{5}\)`), 0, false},
	// Code internals.
	{LeakFilePath, regexp.MustCompile(`(?:^|[\s"'(=:\[])(/(?:home|var|usr|etc|opt|srv|tmp|root|app|src|go|Users|proc|mnt|data|lib|private|workspace|builds?)/[^\s"'(),;]+)`), 1, false},
	{LeakFilePath, regexp.MustCompile(`\b[A-Za-z]:\\[^\s"'<>|]+`), 0, false},
	{LeakStructDump, regexp.MustCompile(`&\{|\b0x[0-9a-f]{8,16}\b|\bmap\[\w+\][\w{} ]+\{|%!\w\(|\b[a-z]\w*\.[A-Z]\w*\{\w*:?`), 0, false},
	{LeakExceptionClass, regexp.MustCompile(`\bjava\.[a-z]+(?:\.[A-Za-z_$]+)+|\b(?:[a-z]\w*\.)+[A-Z]\w*(?:Exception|Error)\b|\b[A-Z][A-Za-z0-9]*(?:Exception|Error)\b|\b[A-Z][a-z]+[A-Z][A-Za-z]*\(['"]`), 0, false},
}

// maxLeakText bounds a leak's quoted text.
const maxLeakText = 120

type leakSpan struct {
	start, end int
	kind       string
}

// findLeaks returns the internals text discloses, in order of position,
// each once.
func findLeaks(text string) []Leak {
	var spans []leakSpan
	for _, p := range leakPatterns {
		for _, m := range p.re.FindAllStringSubmatchIndex(text, maxLeaks) {
			s, e := submatchSpan(m, p.group)
			if p.kind == LeakFilePath {
				// "open /var/x.yaml: denied": the colon is the sentence's.
				for e > s && strings.IndexByte(".,:", text[e-1]) >= 0 {
					e--
				}
			}
			if s < 0 || !leakPlausible(p.kind, text, s, e) || p.mixed && !hasDigitAndLetter(text[s:e]) {
				continue
			}
			spans = append(spans, leakSpan{s, e, p.kind})
		}
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var out []Leak
	seen := map[Leak]bool{}
	// A match inside a longer match of the same kind is not reported
	// again; one of another kind is (an IP inside host:port is both, so a
	// judge can anchor either on the run's facts).
	maxEnd := map[string]int{}
	for _, sp := range spans {
		if end, ok := maxEnd[sp.kind]; ok && sp.end <= end {
			continue
		}
		maxEnd[sp.kind] = max(maxEnd[sp.kind], sp.end)
		l := Leak{Kind: sp.kind, Text: clipLeak(text[sp.start:sp.end])}
		if !seen[l] && len(out) < maxLeaks {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// leakPlausible filters matches a pattern cannot rule out by itself.
func leakPlausible(kind, text string, s, e int) bool {
	m := text[s:e]
	switch kind {
	case LeakIP:
		if strings.Contains(m, ":") {
			// IPv6: must parse and carry "::" or eight groups, so clock
			// times ("12:30:45") and "Class::method" do not count.
			if s > 0 && isIdentByte(text[s-1]) {
				return false
			}
			full := text[s:e]
			_, err := netip.ParseAddr(full)
			return err == nil && (strings.Contains(full, "::") || strings.Count(full, ":") == 7)
		}
		// IPv4: each octet ≤ 255, and not a version number ("v1.2.3.4").
		if _, err := netip.ParseAddr(m); err != nil {
			return false
		}
		// Nor an id that merely starts like one ("order 10.2.3.4-A").
		if e+1 < len(text) && text[e] == '-' && isIdentByte(text[e+1]) {
			return false
		}
		return s == 0 || (text[s-1] != 'v' && text[s-1] != 'V')
	case LeakExceptionClass:
		// "Error" alone, and everyday words ending in it, are not classes.
		return m != "Error" && m != "Exception"
	case LeakHostPort:
		// "ratio 1.5:10" is not an address: the host must be an IP, a
		// bracketed IPv6, localhost, or a name whose last label has a
		// letter.
		host := m[:strings.LastIndexByte(m, ':')]
		if strings.HasPrefix(host, "[") || strings.EqualFold(host, "localhost") {
			return true
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return true
		}
		label := host[strings.LastIndexByte(host, '.')+1:]
		return strings.IndexFunc(label, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
	}
	return true
}

// submatchSpan returns the span of group g of a match, falling back to
// the next group when g did not take part (alternatives with the value in
// different groups).
func submatchSpan(m []int, g int) (int, int) {
	for ; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 {
			return m[2*g], m[2*g+1]
		}
		if g == 0 {
			break
		}
	}
	return -1, -1
}

func hasDigitAndLetter(s string) bool {
	return strings.ContainsAny(s, "0123456789") &&
		strings.IndexFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
}

// clipLeak truncates a leak to maxLeakText bytes on a rune boundary.
func clipLeak(s string) string {
	s = strings.TrimSpace(s)
	n := maxLeakText
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
