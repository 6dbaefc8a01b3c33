package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunVars checks `mcpchaos run --var`: the values fill the scenario
// before it is parsed, and a missing, unused or malformed one is a usage
// error naming it.
func TestRunVars(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	doc := "name: vars\nserver:\n  url: '{{ var \"SERVER\" }}'\nsteps:\n  - tool: create_order\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	scs, docs, err := loadScenarios([]string{path}, varFlags{"SERVER": "http://127.0.0.1:1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if scs[0].Server.URL != "http://127.0.0.1:1/mcp" || !strings.Contains(string(docs[0]), "url: 'http://127.0.0.1:1/mcp'") {
		t.Errorf("not filled: %q, %s", scs[0].Server.URL, docs[0])
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", path}, `variable "SERVER" is not set`},
		{[]string{"run", "--var", "SERVER=x", "--var", "SERVR=y", path}, `--var SERVR: no scenario uses`},
		{[]string{"run", "--var", "SERVER", path}, `"SERVER": want NAME=VALUE`},
	} {
		code, _, errOut := cli(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("mcpchaos %s: exit %d %q, want %d and %q", strings.Join(tc.args, " "), code, errOut, exitUsage, tc.want)
		}
	}
}
