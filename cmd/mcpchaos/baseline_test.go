package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLI runs mcpchaos in process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code = run(ctx, args, stdio{out: &out, err: &errb})
	return code, out.String(), errb.String()
}

// TestBaselineFailsOnlyOnNewFindings: the demo's careless server under
// unreachable has error findings. Against its own report it exits 0;
// against that report less one finding and plus one the server no
// longer has, it exits 1 naming only the missing one as new, and lists
// the other as gone.
func TestBaselineFailsOnlyOnNewFindings(t *testing.T) {
	t.Setenv(asMainEnv, "1") // the demo server is this test binary
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	demo := []string{"demo", "--variant", "careless", "--fault", "unreachable", "--seed", "5", "--fail-on", "error"}
	if code, _, stderr := runCLI(t, append(demo, "--format", "json", "--out", base)...); code != exitFindings {
		t.Fatalf("without a baseline the careless demo exits %d, want 1 (findings): %s", code, stderr)
	}

	code, out, stderr := runCLI(t, append(demo, "--baseline", base)...)
	if code != exitOK {
		t.Fatalf("the same run against its own report exits %d, want 0: %s\n%s", code, stderr, out)
	}
	if strings.Contains(out, "[new]") || !strings.Contains(out, "[known]") || !strings.Contains(out, " 0 new,") {
		t.Errorf("the same run: findings not all known:\n%s", out)
	}

	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	run0 := doc["runs"].([]any)[0].(map[string]any)
	findings := run0["findings"].([]any)
	if len(findings) == 0 {
		t.Fatalf("the careless demo's first run has no finding")
	}
	dropped := findings[0].(map[string]any)["id"].(string)
	gone := map[string]any{"id": "MC999", "severity": "error", "title": "a finding since fixed", "tool": "create_shipment", "evidence": "", "hint": ""}
	run0["findings"] = append(findings[1:], gone)
	edited := filepath.Join(dir, "edited.json")
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, b, 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, stderr = runCLI(t, append(demo, "--baseline", edited)...)
	if code != exitFindings {
		t.Fatalf("one new finding: exit %d, want 1: %s\n%s", code, stderr, out)
	}
	var newLines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "[new]") {
			newLines = append(newLines, l)
		}
	}
	if len(newLines) != 1 || !strings.Contains(newLines[0], dropped+" [new]") {
		t.Errorf("want exactly one new finding, %s; got %q in:\n%s", dropped, newLines, out)
	}
	if !strings.Contains(out, "gone since baseline "+edited) || !strings.Contains(out, "MC999  create_shipment") || !strings.Contains(out, " 1 new,") {
		t.Errorf("the finding that went away is not listed:\n%s", out)
	}

	// The JSON report says the same.
	js := filepath.Join(dir, "new.json")
	if code, _, stderr := runCLI(t, append(demo, "--baseline", edited, "--format", "json", "--out", js)...); code != exitFindings {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	var rep struct {
		Baseline struct {
			File string
			New  int
			Gone []struct{ ID string }
		}
		Summary struct {
			ByID map[string]int `json:"by_id"`
		}
	}
	data, err = os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Baseline.New != 1 || len(rep.Baseline.Gone) != 1 || rep.Baseline.Gone[0].ID != "MC999" || len(rep.Summary.ByID) != 1 || rep.Summary.ByID[dropped] != 1 {
		t.Errorf("JSON baseline %+v, summary %v", rep.Baseline, rep.Summary.ByID)
	}
}
