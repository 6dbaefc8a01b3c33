// Command frontbench measures what an MCP front costs a tool call (see
// bench/README.md, "MCP front"). Its serve-stdio and serve-http modes are
// the server it measures with.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpchaos/mcpchaos/bench/internal/frontbench"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "serve-stdio":
			exit(frontbench.ServeStdio())
		case "serve-http":
			exit(frontbench.ServeHTTP())
		}
	}
	self, err := os.Executable()
	if err != nil {
		exit(err)
	}
	cfg := frontbench.Config{Self: self, Out: os.Stdout, Log: os.Stderr}
	flag.StringVar(&cfg.Mcpchaos, "mcpchaos", "", "the mcpchaos binary (required)")
	flag.IntVar(&cfg.Rounds, "rounds", 5, "interleaved rounds")
	flag.IntVar(&cfg.Calls, "calls", 2000, "sequential calls per target and round")
	flag.IntVar(&cfg.Workers, "workers", 8, "concurrent callers for the throughput figure")
	flag.IntVar(&cfg.PerWorker, "per-worker", 500, "calls each concurrent caller makes")
	flag.Parse()
	if cfg.Mcpchaos == "" {
		fmt.Fprintln(os.Stderr, "frontbench: -mcpchaos is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	exit(frontbench.Run(ctx, cfg))
}

func exit(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "frontbench:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
