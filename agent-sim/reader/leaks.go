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
	// need: the lower-cased text must hold one of these for the pattern
	// to run (a cheap filter; most replies hold none).
	// An upper-case need is matched against the text as written (SQL
	// keywords), not its lower case.
	need []string
	// gate, when set, must also hold for a line the need let through: a
	// cheap scan for a shape no literal need can say.
	gate func(line string) bool
}

// leakPatterns are checked in order; docs/reader.md lists them. A match
// inside a longer match already found (an IP inside host:port, a path
// inside a stack frame) is not reported again.
var leakPatterns = []leakPattern{
	// Stack traces: Go, Python, Java, JavaScript.
	{LeakStackTrace, regexp.MustCompile(`goroutine \d+ \[[a-z ]+\]:|\bpanic: [^\n]{0,100}|\S+\.go:\d+ \+0x[0-9a-f]+|\bruntime error: [^\n]{0,80}`), 0, false, n("goroutine ", "panic: ", ".go:", "runtime error"), nil},
	{LeakStackTrace, regexp.MustCompile(`Traceback \(most recent call last\):|File "[^"\n]+", line \d+`), 0, false, n("traceback", "file \""), nil},
	{LeakStackTrace, regexp.MustCompile(`\bat [\w$.<>]+\([\w$]+\.(java|kt|scala):\d+\)|Exception in thread "[^"]*"`), 0, false, n(".java:", ".kt:", ".scala:", "exception in thread"), nil},
	{LeakStackTrace, regexp.MustCompile(`\bat (?:async )?(?:[\w$.<>\[\] ]+ )?\(?(?:file://)?[\w./\\:@-]+\.(?:js|mjs|cjs|ts):\d+:\d+\)?`), 0, false, n(".js:", ".ts:", ".mjs:", ".cjs:"), nil},
	// .NET frames ("   at Orders.Api.OrderService.GetAsync(String id) in
	// C:\src\OrderService.cs:line 57"): an indented "at" and a dotted
	// method with its parameter list, or a frame's " in FILE:line N".
	{LeakStackTrace, regexp.MustCompile(`(?:^|\\n|":")\s+at [\w.` + "`" + `<>$\[\],]+\.[\w<>$` + "`" + `]+\([^()\n]*\)|\) in \S+:line \d+`), 0, false, n("  at ", "\tat ", ":line "), nil},
	// Rust's panic line and Node's frames in its own modules
	// ("at process.processTicksAndRejections (node:internal/…:95:5)").
	{LeakStackTrace, regexp.MustCompile(`\bthread '[^'\n]*' panicked at|\bat [\w$.<> ]+\(node:internal/[^)\s]+:\d+:\d+\)`), 0, false, n("panicked at", "node:internal/"), nil},
	// Secrets before hosts: a token may contain dots and colons.
	{LeakSecret, regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}|\bxox[bpas]-[A-Za-z0-9-]{10,}|\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}`), 0, false, n("sk-", "akia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "xox", "eyj"), nil},
	// More providers' key shapes: Stripe (sk_live_, rk_test_), GitHub's
	// fine-grained PAT, Google API keys, a PEM private key, and webhook
	// URLs whose path is the credential (Slack, Discord).
	{LeakSecret, regexp.MustCompile(`\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}|\bgithub_pat_[A-Za-z0-9_]{30,}|\bAIza[0-9A-Za-z_-]{35}|-----BEGIN [A-Z ]*PRIVATE KEY-----|hooks\.slack\.com/services/[A-Z0-9]+/[A-Z0-9]+/[A-Za-z0-9]{16,}|discord(?:app)?\.com/api/webhooks/\d+/[\w-]{30,}`), 0, false, n("k_live_", "k_test_", "github_pat_", "aiza", "private key-----", "hooks.slack.com/services/", "/api/webhooks/"), nil},
	{LeakSecret, regexp.MustCompile(`(?i)(?:\b|_)secret[_-]?access[_-]?key["']?\s*[:=]\s*["']?([A-Za-z0-9+/_.=-]{16,})|\b(?:api[_-]?key|access[_-]?key|secret(?:[_-]?key)?|token|auth[_-]?token|authorization|client[_-]?secret)["']?\s*[:=]\s*["']?(?:bearer\s+|basic\s+)?([A-Za-z0-9+/_.=-]{16,})|\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), 1, true, n("key", "token", "secret", "auth", "bearer"), nil},
	// A key echoed in prose: "The API key you provided (possibly incorrect)
	// is: ctx7sk-4be1…".
	{LeakSecret, regexp.MustCompile(`(?i)\b(?:api key|access key|secret key|token|password)\b[^.:\n]{0,48}?\bis:?\s+["'` + "`" + `]?([A-Za-z0-9][A-Za-z0-9_\-]{15,})`), 1, false, n("api key", "access key", "secret key", "token", "password"), nil},
	{LeakSecret, regexp.MustCompile(`(?i)(?:\b|_)(?:password|passwd|pwd)["']?\s*[:=]\s*["']?([^\s"',;]{4,})`), 1, true, n("pass", "pwd"), nil},
	// A URL's userinfo password ("postgres://app:s3cret@db:5432/x"): a
	// connection string quoted whole in a driver's error. secretValue
	// drops placeholders ("user:password@") and redactions (":****@"),
	// here as for every value found after a key word.
	{LeakSecret, regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@'"` + "`" + `]*:([^\s@/'"` + "`" + `]+)@`), 1, false, n("://"), nil},
	// Source locations ("handler.go:42") before host:port, which they
	// resemble.
	{LeakFilePath, regexp.MustCompile(`\b[\w/.-]*\w\.(?:go|py|js|mjs|ts|java|kt|rb|rs|php|cs|cpp|c|h|scala|ex|exs):\d+\b`), 0, false, n(".go:", ".py:", ".js:", ".mjs:", ".ts:", ".java:", ".kt:", ".rb:", ".rs:", ".php:", ".cs:", ".cpp:", ".c:", ".h:", ".scala:", ".ex:", ".exs:"), nil},
	// Addresses.
	{LeakHostPort, regexp.MustCompile(`(?i)\b(?:\d{1,3}(?:\.\d{1,3}){3}|localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)+):\d{2,5}\b|\[[0-9a-f:]+\]:\d{2,5}\b`), 0, false, n(":1", ":2", ":3", ":4", ":5", ":6", ":7", ":8", ":9", "]:"), nil},
	{LeakInternalHost, regexp.MustCompile(`(?i)\b(?:[a-z0-9-]+\.)+(?:internal|local|localdomain|lan|corp|intranet|intra|svc|cluster\.local)\b|\blocalhost\b`), 0, false, n(".internal", ".local", ".lan", ".corp", ".intra", ".svc", "localhost"), nil},
	{LeakIP, regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}\b`), 0, false, n("0.", "1.", "2.", "3.", "4.", "5.", "6.", "7.", "8.", "9."), nil},
	{LeakIP, regexp.MustCompile(`(?i)[0-9a-f:]*::[0-9a-f:]*[0-9a-f]|\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b`), 0, false, n("::", "0:", "1:", "2:", "3:", "4:", "5:", "6:", "7:", "8:", "9:", "a:", "b:", "c:", "d:", "e:", "f:"), nil},
	// Databases.
	// A SQLSTATE as drivers print it: "SQLSTATE 23505", "SQLSTATE[23000]",
	// a JSON or dict key ("sqlstate": "42P01"), and MySQL's "Error 1062
	// (23000)" — the parenthesised code after MySQL's error number is the
	// SQLSTATE, the database's code whatever the statement was.
	{LeakSQLState, regexp.MustCompile(`(?i)\bsqlstate["']?\s*[:=\[(]?\s*["']?[0-9A-Z]{5}\b|\bERROR \d{4} \([0-9A-Z]{5}\)`), 0, false, n("sqlstate", "error "), nil},
	// Npgsql's PostgresException message opens with its SQLSTATE ("23505:
	// duplicate key value …"); only the classes a failed call meets
	// (connection, data, integrity, transaction, rollback, syntax,
	// resources, operator) and a lower-case message after it.
	{LeakSQLState, regexp.MustCompile(`(?:^|: )((?:08|22|23|25|40|42|53|57)[0-9A-Z]{3}): [a-z]`), 1, false, n("08", "22", "23", "25", "40", "42", "53", "57"), nil},
	{LeakSQL, regexp.MustCompile(`\bSELECT\s+[\w*,. ()]+?\s+FROM\s+\w+|\bINSERT\s+INTO\s+\w+|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\s+\w+|\b(?:CREATE|DROP|ALTER)\s+TABLE\s+\w+|\bWHERE\s+\w+\s*(?:=|IN\s*\(|LIKE)`), 0, false, n("SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "WHERE"), nil},
	{LeakSQL, regexp.MustCompile(`\bselect\s+[\w*,. ]+\s+from\s+\w+\s+where\b|\binsert\s+into\s+\w+\s*\(|\bupdate\s+\w+\s+set\s+\w+\s*=|\bdelete\s+from\s+\w+\s+where\b`), 0, false, n("select", "insert", "update", "delete"), nil},
	{LeakSQL, regexp.MustCompile(`(?i)\bpq: [^\n]{0,80}|\brelation "[^"]+" does not exist|\bsyntax error at or near "[^"]*"|\bno such (?:table|column): [\w.]+|\bTable '[\w.]+' doesn't exist|\bUnknown column '[^'\n]+' in '[^'\n]+'|\bcolumn "[^"\n]+" (?:of relation "[^"\n]+" )?does not exist`), 0, false, n("pq:", "relation \"", "syntax error", "no such ", "doesn't exist", "unknown column", "column \""), nil},
	// Code internals.
	{LeakFilePath, regexp.MustCompile(`(?:^|[\s"'(=:\[])(/(?:home|var|usr|etc|opt|srv|tmp|root|app|src|go|Users|proc|mnt|data|lib|private|workspace|builds?|run|nix|rustc|code)/[^\s"'(),;]+)`), 1, false, n("/home", "/var", "/usr", "/etc", "/opt", "/srv", "/tmp", "/root", "/app", "/src", "/go", "/users", "/proc", "/mnt", "/data", "/lib", "/private", "/workspace", "/build", "/run/", "/nix/", "/rustc/", "/code/"), nil},
	{LeakFilePath, regexp.MustCompile(`\b[A-Za-z]:\\[^\s"'<>|:]+`), 0, false, n(":\\"), nil},
	// Struct dumps: Go's %v of a pointer ("&{"), a pointer value, a map, a
	// bad verb, a qualified type's literal; Rust's {:?} ("Os { code: 111,
	// kind: …"). A pointer has more than eight hex digits (a 64-bit
	// address): "0x80070005" is an HRESULT, a documented error code.
	{LeakStructDump, regexp.MustCompile(`&\{|\b0x[0-9a-f]{9,16}\b|\bmap\[\w+\][\w{} ]+\{[^}]|%!\w\(|\b[a-z]\w*\.[A-Z]\w*\{\w*:?|\b[A-Z]\w* \{ [a-z_]\w*: (?:[^{\[ ]|\{[^}]|\[[^\]])`), 0, false, n("&{", "0x", "map[", "%!", "{"), nil},
	// Exception classes: Java's, a qualified or bare name ending in
	// Exception or Error (Python's private "_InactiveRpcError" too), a
	// repr "ConnectTimeout('", and a class under a module path of two or
	// more packages ("psycopg2.errors.UniqueViolation"): Go's "pkg.Name"
	// has one, a host name has no capital.
	{LeakExceptionClass, regexp.MustCompile(`\bjava\.[a-z]+(?:\.[A-Za-z_$]+)+|\b(?:[a-z]\w*\.)+_*[A-Z]\w*(?:Exception|Error)\b|\b_*[A-Z][A-Za-z0-9]*(?:Exception|Error)\b|\b[A-Z][a-z]+[A-Z][A-Za-z]*\(['"]`), 0, false, n("java.", "exception", "error", "('", "(\""), nil},
	{LeakExceptionClass, regexp.MustCompile(`(?:^|[\s(<'"])([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+\.[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)\b`), 1, false, n("."), lowerDotUpper},
	// A type under a path ("sqlx::Error", "std::io::Error",
	// "ActiveRecord::RecordNotFound"): Rust's and Ruby's error types as
	// their Debug output and messages name them.
	{LeakExceptionClass, regexp.MustCompile(`\b[A-Za-z_]\w*(?:::\w+)*::[A-Z][a-z][A-Za-z0-9]*\b`), 0, false, n("::"), nil},
}

// lowerDotUpper reports whether line holds a lower-case letter, a digit or
// "_", then ".", then a capital ("errors.UniqueViolation"), the joint of a
// module path and a class name.
func lowerDotUpper(line string) bool {
	for i := 1; i+1 < len(line); i++ {
		if line[i] == '.' {
			b, c := line[i-1], line[i+1]
			if 'A' <= c && c <= 'Z' && ('a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '_') {
				return true
			}
		}
	}
	return false
}

// maxLeakText bounds a leak's quoted text.
const maxLeakText = 120

type leakSpan struct {
	start, end int
	kind       string
}

// findLeaksIn returns the internals text discloses (low is its ASCII
// lower case), in order of position, each once per kind.
//
// ps is the byte-pair index of low.
func findLeaksIn(ps *pairSet, text, low string) []Leak {
	// Patterns run line by line, and only on lines holding one of their
	// needs: a long reply costs a scan for the needs plus the regexps on
	// the few lines that can match. No pattern spans lines.
	var lines [][2]int
	for off := 0; off <= len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		lines = append(lines, [2]int{off, end})
		off = end + 1
	}
	var spans []leakSpan
	for _, p := range leakPatterns {
		in := low
		if c := p.need[0][0]; 'A' <= c && c <= 'Z' {
			in = text
		}
		if !hasAnyIn(ps, in, p.need) {
			continue
		}
		found := 0
		for _, ln := range lines {
			if found >= maxLeaks || !hasAny(in[ln[0]:ln[1]], p.need) {
				continue
			}
			line := text[ln[0]:ln[1]]
			if p.gate != nil && !p.gate(line) {
				continue
			}
			for _, m := range p.re.FindAllStringSubmatchIndex(line, maxLeaks) {
				s, e := submatchSpan(m, p.group)
				if s < 0 {
					continue
				}
				s, e = s+ln[0], e+ln[0]
				if p.kind == LeakFilePath {
					// "open /var/x.yaml: denied": the colon is the sentence's.
					for e > s && strings.IndexByte(".,:", text[e-1]) >= 0 {
						e--
					}
					// .NET's "Program.cs:line 12": the line's label is not the path's.
					if strings.HasSuffix(text[s:e], ":line") {
						e -= len(":line")
					}
				}
				if !leakPlausible(p.kind, text, s, e) || p.mixed && !hasDigitAndLetter(text[s:e]) ||
					p.kind == LeakSecret && p.group > 0 && !secretValue(text[s:e]) {
					continue
				}
				spans = append(spans, leakSpan{s, e, p.kind})
				found++
			}
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
		// "Error" alone, and everyday words ending in it, are not classes;
		// an NSError's "Domain=RemindersError" is an error domain, a
		// public name.
		return m != "Error" && m != "Exception" && !strings.HasSuffix(text[:s], "Domain=")
	case LeakFilePath:
		// "GET /data/invoices/7 returned 404": after an HTTP method the
		// path is the upstream API's route, not a file of the server.
		// "(_ssl.c:1006)" ends every SSL error Python raises: the
		// interpreter's own source line, which reveals nothing.
		return !afterHTTPMethod(text[:s]) && !strings.HasPrefix(m, "_ssl.c:")
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
		if sourceExt[strings.ToLower(label)] {
			return false // "Api.java:41" is a source location
		}
		return strings.IndexFunc(label, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
	}
	return true
}

// sourceExt are source-file extensions: "name.ext:N" is a source
// location, not host:port.
var sourceExt = wordSet("go py js mjs cjs ts tsx jsx java kt rb rs php cs cpp c h scala ex exs swift")

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
