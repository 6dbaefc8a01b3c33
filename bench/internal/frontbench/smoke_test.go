package frontbench

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testenv"
)

// TestQuickRun builds mcpchaos and frontbench and runs a tiny benchmark,
// so CI knows it builds and works. It checks that every figure was
// produced, never what it is.
func TestQuickRun(t *testing.T) {
	testenv.SkipShort(t, "builds two programs and starts several processes")
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build the programs with: %v", err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, goBin, "build", "-o", dir+string(filepath.Separator),
		"github.com/mcpchaos/mcpchaos/cmd/mcpchaos", "github.com/mcpchaos/mcpchaos/bench/cmd/frontbench")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out, log bytes.Buffer
	cfg := Config{Mcpchaos: filepath.Join(dir, "mcpchaos"), Self: filepath.Join(dir, "frontbench"),
		Rounds: 1, Calls: 20, Workers: 2, PerWorker: 10, Out: &out, Log: &log}
	if err := Run(ctx, cfg); err != nil {
		t.Fatalf("Run: %v\nlog:\n%s", err, log.String())
	}
	for _, want := range []string{"| stdio direct |", "| stdio through wrap |", "| stdio through wrap --report |",
		"| http direct |", "| http through the front |", "added p50 latency per call"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
}
