// Command bench is the benchmark harness's driver: it starts the upstream
// and the proxies from -bindir (and Toxiproxy from -toxiproxy), runs the
// interleaved rounds, generating the load itself, and prints the report
// (Markdown) on stdout and progress on stderr. bench/run.sh builds the
// programs and calls it; see bench/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/harness"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run() error {
	quick := flag.Bool("quick", false, "a short smoke run: one tiny round (its figures mean nothing)")
	binDir := flag.String("bindir", "", "directory holding upstream, plainproxy and mcpchaos-proxy")
	toxi := flag.String("toxiproxy", "", "path of toxiproxy-server v2.5.0 (empty: leave Toxiproxy out)")
	rounds := flag.Int("rounds", 0, "interleaved rounds (default 5; 1 with -quick)")
	window := flag.Duration("window", 0, "measured time of each HTTP load (default 3s)")
	warmup := flag.Duration("warmup", -1, "unmeasured warm-up of each HTTP load (default 500ms)")
	bulkMiB := flag.Int64("bulk-mib", 0, "MiB moved each way by each bulk transfer (default 1024)")
	bigMiB := flag.Int64("big-mib", 0, "MiB of body in each large-body HTTP exchange (default 64)")
	bigReps := flag.Int("big-reps", 0, "large-body exchanges each way per target and round (default 3; 1 with -quick)")
	idle := flag.Int("idle", 0, "idle connections of the memory test (default 2000)")
	live := flag.Int("live", 0, "live connections of the rule-change test (default 1000)")
	raw := flag.String("raw", "", "also write every per-round figure and failure to this JSON file")
	timeout := flag.Duration("timeout", time.Hour, "give up after this long")
	flag.Parse()

	cfg := harness.Defaults()
	if *quick {
		cfg = harness.Quick()
	}
	cfg.BinDir, cfg.Toxiproxy, cfg.Raw = *binDir, *toxi, *raw
	cfg.Out, cfg.Log = os.Stdout, os.Stderr
	if *rounds > 0 {
		cfg.Rounds = *rounds
	}
	if *window > 0 {
		cfg.Window = *window
	}
	if *warmup >= 0 {
		cfg.Warmup = *warmup
	}
	if *bulkMiB > 0 {
		cfg.BulkBytes = *bulkMiB << 20
	}
	if *bigMiB > 0 {
		cfg.BigBytes = *bigMiB << 20
	}
	if *bigReps > 0 {
		cfg.BigReps = *bigReps
	}
	if *idle > 0 {
		cfg.IdleConns = *idle
	}
	if *live > 0 {
		cfg.LiveConns = *live
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	return harness.Run(ctx, cfg)
}
