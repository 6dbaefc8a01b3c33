package api_test

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/api"
)

// docCurl is a curl command of docs/api.md and the status written after
// it ("# → 201").
type docCurl struct {
	line   int
	cmd    string
	status string
	stream bool
}

var statusLine = regexp.MustCompile(`^# → (\d{3})(, streams)?$`)

// docCurls extracts the curl commands of the sh blocks: each runs from a
// line starting with "curl" to its "# → STATUS" line.
func docCurls(t *testing.T, path string) []docCurl {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out     []docCurl
		cur     *docCurl
		inBlock bool
		n       int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```sh"):
			inBlock = true
		case strings.HasPrefix(line, "```"):
			if cur != nil {
				t.Fatalf("%s:%d: curl without a status line (# → 200)", path, cur.line)
			}
			inBlock = false
		case !inBlock:
		case statusLine.MatchString(line):
			if cur == nil {
				t.Fatalf("%s:%d: status line without a curl", path, n)
			}
			m := statusLine.FindStringSubmatch(line)
			cur.status, cur.stream = m[1], m[2] != ""
			out = append(out, *cur)
			cur = nil
		case strings.HasPrefix(line, "curl "):
			if cur != nil {
				t.Fatalf("%s:%d: curl without a status line", path, cur.line)
			}
			cur = &docCurl{line: n, cmd: line}
		case cur != nil:
			cur.cmd += "\n" + line
		}
	}
	return out
}

// TestDocsCurl runs every curl command of docs/api.md, in order, against
// a real server on a loopback port (with a token), from the repository's
// root, and checks each status.
func TestDocsCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is not installed; .ci/run must install it")
		}
		t.Skip("curl is not installed")
	}
	cmds := docCurls(t, "../docs/api.md")
	if len(cmds) < 20 {
		t.Fatalf("only %d curl commands found in docs/api.md", len(cmds))
	}
	f := setup(t, "loopback", nil, api.Options{Token: testToken})
	for _, c := range cmds {
		cmd := strings.ReplaceAll(c.cmd, "http://127.0.0.1:7777", f.base)
		cmd = strings.Replace(cmd, "curl ", curl+" -o /dev/null -w '%{http_code}' ", 1)
		if c.stream {
			cmd += " --max-time 1"
		}
		sh := exec.CommandContext(t.Context(), "sh", "-c", cmd)
		sh.Dir = ".."
		sh.Env = append(os.Environ(), "MCPCHAOS_TOKEN="+testToken)
		out, err := sh.Output()
		if string(out) != c.status {
			t.Errorf("docs/api.md:%d: status %q, want %s (%v)\n%s", c.line, out, c.status, err, c.cmd)
		}
	}
}
