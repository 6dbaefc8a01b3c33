package reader

import (
	"regexp"
	"slices"
	"strings"
)

// leakCandidates are the leak candidates of text (low is its ASCII lower
// case, ps its pair index) on channel ch, upstream telling whether the
// text reads as a raw upstream failure.
func leakCandidates(ps *pairSet, text, low string, ch Channel, upstream bool, ctx Context) []Leak {
	leaks := dropOperandPaths(append(findLeaksIn(ps, text, low), jsonSQLState(text, low)...), ctx)
	if ch != Success || upstream || successReadsAsFailure(text) {
		return leaks
	}
	// A success that does not read as a failure is the tool's answer: a
	// stack trace, SQL, a class name or a path in it is its own data (a
	// job's log, a query's statements, a code search's hits), whether or
	// not a fault hit the call. Addresses and secrets stay: the judge
	// anchors addresses on the run's facts, and a token's shape needs
	// none.
	out := leaks[:0]
	for _, l := range leaks {
		switch l.Kind {
		case LeakSecret, LeakIP, LeakHostPort, LeakInternalHost:
			out = append(out, l)
		}
	}
	return out
}

// successReadsAsFailure reports whether a success's text is an error the
// server folded into a result: its opening label names a failure
// ("Database error: UNIQUE constraint failed", "failed to create comment:
// Post …": a few words before the first colon), it opens with a failure
// ("Failed to …", "Unexpected error …", "An error occurred (…)"), or it is a
// JSON object whose first key is "error" or "errors". A payload's header
// does not ("Job 12 failed. Last lines:" is a sentence about the job, not
// a label, and "failed" is not its opening word).
func successReadsAsFailure(text string) bool {
	t := strings.TrimLeft(bound(text, 200), " \t\r\n*_#>`[")
	if strings.HasPrefix(t, "{") {
		t = strings.TrimLeft(t[1:], " \t\r\n")
		return strings.HasPrefix(t, `"error"`) || strings.HasPrefix(t, `"errors"`) || strings.HasPrefix(t, `'error'`) ||
			jsonFailureStatus(t) || hasAny(text, n(`"stackTrace":`, `"stacktrace":`, `"stack_trace":`, `"traceback":`))
	}
	if i := strings.IndexAny(t, ":\n"); i >= 0 && i < 80 && t[i] == ':' && !strings.Contains(t[:i], ". ") {
		if label := words(t[:i]); len(label) <= 5 && slices.ContainsFunc(label, failureWord) {
			return true
		}
	}
	// The opening: a failure word first, or an error noun among the
	// first three words.
	ws := words(t)
	if len(ws) > 0 && failureWord(ws[0]) {
		return true
	}
	return slices.ContainsFunc(ws[:min(3, len(ws))], func(w string) bool {
		switch w {
		case "error", "errors", "exception", "traceback", "panic":
			return true
		}
		return false
	})
}

// words are the lower-cased runs of letters of s.
func words(s string) []string {
	return strings.FieldsFunc(asciiLower(s), func(r rune) bool { return r < 'a' || r > 'z' })
}

// failureWord: a word that says a call failed.
func failureWord(w string) bool {
	switch w {
	case "error", "errors", "failed", "failure", "fatal", "exception", "traceback", "panic", "unexpected", "unable", "cannot", "couldn":
		return true
	}
	return false
}

// dropOperandPaths drops leak candidates that are the tool's own subject:
// SQL when the tool takes SQL (takesSQL; a SQLSTATE still counts: it is
// the database's code, not the model's words), and file paths
// when it takes a path or runs a command: when the current tool has an argument such as
// path, file or destination, a path in its reply ("ENOENT: no such file
// or directory, open '/home/dev/app/config.yaml'", "Destination already
// exists: /srv/x") is the tool's own subject, most likely the very path
// the model passed. A source location with a line number ("handler.go:42")
// is still kept: no file tool names its own code's lines.
func dropOperandPaths(leaks []Leak, ctx Context) []Leak {
	paths, sql := takesPath(ctx.Current), takesSQL(ctx.Current)
	if !paths && !sql {
		return leaks
	}
	out := leaks[:0]
	for _, l := range leaks {
		if paths && l.Kind == LeakFilePath && !lineRefRE.MatchString(l.Text) ||
			sql && l.Kind == LeakSQL {
			continue
		}
		out = append(out, l)
	}
	return out
}

// takesSQL reports whether a tool takes SQL from the model (an argument
// named like sql or statement, or a query argument of a tool named for
// SQL or queries): its errors quote and judge the model's own statement
// ("syntax error at or near …"), which is its subject, not the server's
// internals.
func takesSQL(t Tool) bool {
	name := strings.ToLower(t.Name)
	for _, p := range t.Params {
		switch lp := strings.ToLower(p); {
		case strings.Contains(lp, "sql"), lp == "statement", lp == "statements":
			return true
		case lp == "query" && dbToolName(name):
			return true
		}
	}
	return false
}

// dbToolName reports whether a tool's name is a database's: its "query"
// argument is then a statement ("apply_migration", "query_orders_db",
// "execute_sql"), where a search tool's "query" is words.
func dbToolName(name string) bool {
	for _, w := range []string{"sql", "query", "migrat", "database", "schema", "table"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if w == "db" {
			return true
		}
	}
	return false
}

// lineRefRE: a source location's line number ("x.go:42").
var lineRefRE = regexp.MustCompile(`\.\w+:\d+\b`)

// takesPath reports whether a tool has a file-system path argument, or
// runs a command (a shell tool's output is about the user's own machine).
func takesPath(t Tool) bool {
	for _, p := range t.Params {
		switch lp := strings.ToLower(p); {
		case strings.HasSuffix(lp, "id") || strings.HasSuffix(lp, "ids"):
			// "file_id", "folderId": an id names a file the server keeps
			// where it likes; a path in its failure is the server's own.
		case lp == "command", lp == "cmd", lp == "script", lp == "shell_command":
			return true
		case strings.Contains(lp, "path"), strings.Contains(lp, "folder"), strings.Contains(lp, "directory"),
			strings.HasPrefix(lp, "file"), strings.HasSuffix(lp, "file") && !strings.HasSuffix(lp, "profile"),
			strings.HasSuffix(lp, "files"), strings.HasSuffix(lp, "dir"),
			lp == "source", lp == "destination", lp == "src", lp == "dst":
			return true
		}
	}
	return false
}

// jsonSQLState finds a database driver's error dumped as JSON
// (node-postgres, Neon: "severity", "routine", "code": "23505"): its
// "code" is a SQLSTATE.
func jsonSQLState(text, low string) []Leak {
	if !strings.Contains(low, `"severity"`) || !strings.Contains(low, `"routine"`) && !strings.Contains(low, `"constraint"`) {
		return nil
	}
	m := sqlStateCodeRE.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	return []Leak{{Kind: LeakSQLState, Text: clipLeak(m[0])}}
}

var sqlStateCodeRE = regexp.MustCompile(`"code"\s*:\s*"([0-9][0-9A-Z][0-9A-Z]{3})"`)

// jsonFailureStatus reports a JSON object (past its "{") that opens with
// an HTTP failure status: {"status":500,…}, {"statusCode": 404, …}.
func jsonFailureStatus(t string) bool {
	for _, k := range []string{`"status":`, `"statusCode":`, `"status_code":`, `"code":`} {
		if strings.HasPrefix(t, k) {
			v := strings.TrimLeft(t[len(k):], " ")
			return len(v) >= 3 && (v[0] == '4' || v[0] == '5') && isDigit(v[1]) && isDigit(v[2]) && (len(v) == 3 || !isDigit(v[3]))
		}
	}
	return false
}
