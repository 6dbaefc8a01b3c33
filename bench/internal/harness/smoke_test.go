package harness

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testenv"
)

// TestQuickRun builds the benchmark's programs and runs the whole harness
// in its quick mode, so CI knows the harness builds and works. It checks
// that every figure was produced, never what it is: timings on a shared
// CI machine mean nothing. Toxiproxy joins when BENCH_TOXIPROXY names a
// toxiproxy-server binary (nothing is downloaded here).
func TestQuickRun(t *testing.T) {
	testenv.SkipShort(t, "starts processes and drives load for several seconds")
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build the programs with: %v", err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, goBin, "build", "-o", dir+string(filepath.Separator),
		"github.com/mcpchaos/mcpchaos/bench/cmd/upstream",
		"github.com/mcpchaos/mcpchaos/bench/cmd/plainproxy",
		"github.com/mcpchaos/mcpchaos/bench/cmd/mcpchaos-proxy")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	cfg := Quick()
	cfg.BinDir = dir
	cfg.Toxiproxy = os.Getenv("BENCH_TOXIPROXY")
	cfg.Window = 100 * time.Millisecond
	cfg.IdleConns, cfg.LiveConns = 20, 20
	cfg.BulkBytes = 4 << 20
	cfg.Raw = filepath.Join(dir, "raw.json")
	var out, log bytes.Buffer
	cfg.Out, cfg.Log = &out, &log
	st, err := run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v\nlog:\n%s", err, log.String())
	}
	report := out.String()
	t.Logf("report:\n%s", report)

	for _, want := range []string{"| measurement | direct | plain | mcpchaos tcp | mcpchaos http |", "Ratios", "Targets",
		"| HTTP POST, 64 MiB body, latency 1ms both ways: MiB/s |", "| HTTP GET, 64 MiB body, latency 1ms both ways: MiB/s |",
		"no-fault path (mcpchaos tcp and http, no rule)"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(report, "discarded") {
		t.Errorf("a load failed:\n%s", log.String())
	}
	// Every figure of every target that takes it was measured.
	want := map[string][]string{
		"ka1.rps": {tDirect, tPlain, tMcpTCP, tMcpHTTP}, "ka32.rps": {tDirect, tPlain, tMcpTCP, tMcpHTTP},
		"new8.rps": {tDirect, tPlain, tMcpTCP, tMcpHTTP}, "ka32.cpu": {tPlain, tMcpTCP, tMcpHTTP},
		"bulk.down": {tDirect, tPlain, tMcpTCP}, "bulk.up": {tDirect, tPlain, tMcpTCP},
		"mem.kib": {tPlain, tMcpTCP, tMcpHTTP}, "rule.call": {tMcpTCP, tMcpHTTP},
		"rule.ended": {tMcpTCP, tMcpHTTP},
		"big.up":     {tDirect, tPlain, tMcpTCP, tMcpHTTP}, "big.down": {tDirect, tPlain, tMcpTCP, tMcpHTTP},
		"big.up.rss": {tPlain, tMcpTCP, tMcpHTTP}, "big.down.rss": {tPlain, tMcpTCP, tMcpHTTP},
		"big.rest":    {tPlain, tMcpTCP, tMcpHTTP},
		"bigf.up.rss": {tMcpHTTP}, "bigf.down.rss": {tMcpHTTP},
	}
	// A faulted large-body exchange may be refused (a proxy that holds
	// bodies answers 413 above its cap): the figure is then a failure
	// with its reason, which is what the report must show.
	orFailed := map[string][]string{"bigf.up": {tMcpHTTP}, "bigf.down": {tMcpHTTP}}
	if cfg.Toxiproxy != "" {
		for fig := range want {
			want[fig] = append(want[fig], tToxi)
		}
		for fig := range orFailed {
			orFailed[fig] = append(orFailed[fig], tToxi)
		}
	}
	for fig, targets := range want {
		for _, tg := range targets {
			if _, n := st.median(fig, tg); n != 1 {
				t.Errorf("no %s for %s", fig, tg)
			}
		}
	}
	for fig, targets := range orFailed {
		for _, tg := range targets {
			_, n := st.median(fig, tg)
			fails := st.failures(fig, tg)
			if n+len(fails) != 1 {
				t.Errorf("%s for %s: %d figures and failures %q, want one of either", fig, tg, n, fails)
			}
			for _, why := range fails {
				if !strings.Contains(report, "failed: "+why) {
					t.Errorf("%s failed on %s (%s) but the report does not say so", fig, tg, why)
				}
			}
		}
	}
	if _, err := os.Stat(cfg.Raw); err != nil {
		t.Errorf("raw figures: %v", err)
	}
}
