package reader

import (
	"regexp"
	"strings"
)

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
		case lp == "query" && (strings.Contains(name, "sql") || strings.Contains(name, "query")):
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
