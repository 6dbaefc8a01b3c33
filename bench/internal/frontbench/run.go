package frontbench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config is what a run measures and with what.
type Config struct {
	// Mcpchaos is the mcpchaos binary (wrap, serve); Self the frontbench
	// binary (its serve-stdio and serve-http modes are the server).
	Mcpchaos, Self string
	// Rounds of interleaved measurements; Calls sequential calls per
	// target and round (latency); Workers concurrent callers on one
	// session making PerWorker calls each (throughput).
	Rounds, Calls, Workers, PerWorker int
	Out, Log                          io.Writer
}

// target is one way to reach the server.
type target struct {
	name, base string // base: the direct target it is compared with
	open       func(ctx context.Context) (*mcp.ClientSession, func(), error)
}

// figures are one target's measurements in one round.
type figures struct {
	p50, p99 time.Duration // sequential call latency
	rate     float64       // calls/s with Workers concurrent callers
}

// Run measures every target Rounds times, interleaved, and writes the
// Markdown report to cfg.Out.
func Run(ctx context.Context, cfg Config) error {
	dir, err := os.MkdirTemp("", "frontbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	httpSrv, url, err := startHTTPServer(cfg.Self)
	if err != nil {
		return err
	}
	defer httpSrv.stop()
	serve, frontURL, apiURL, err := startServe(cfg.Mcpchaos, dir, url)
	if err != nil {
		return err
	}
	defer serve.stop()
	stdio := func(argv ...string) func(ctx context.Context) (*mcp.ClientSession, func(), error) {
		return func(ctx context.Context) (*mcp.ClientSession, func(), error) {
			s, err := startStdio(ctx, argv...)
			if err != nil {
				return nil, nil, err
			}
			return s.cs, s.close, nil
		}
	}
	httpTo := func(endpoint string) func(ctx context.Context) (*mcp.ClientSession, func(), error) {
		return func(ctx context.Context) (*mcp.ClientSession, func(), error) {
			tr := &http.Transport{MaxIdleConnsPerHost: cfg.Workers + 2}
			cs, err := client().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
				HTTPClient: &http.Client{Transport: tr}, DisableStandaloneSSE: true}, nil)
			if err != nil {
				return nil, nil, err
			}
			return cs, func() { _ = cs.Close(); tr.CloseIdleConnections() }, nil
		}
	}
	targets := []target{
		{name: "stdio direct", open: stdio(cfg.Self, "serve-stdio")},
		{name: "stdio through wrap", base: "stdio direct", open: stdio(cfg.Mcpchaos, "wrap", "--", cfg.Self, "serve-stdio")},
		{name: "stdio through wrap --report", base: "stdio direct",
			open: stdio(cfg.Mcpchaos, "wrap", "--report", apiURL, "--", cfg.Self, "serve-stdio")},
		{name: "http direct", open: httpTo(url + "/mcp")},
		{name: "http through the front", base: "http direct", open: httpTo(frontURL)},
	}
	all := map[string][]figures{}
	for r := range cfg.Rounds {
		// Rotate by one each round, so that drift of the shared machine
		// does not always favour the same target.
		k := r % len(targets)
		order := append(slices.Clone(targets[k:]), targets[:k]...)
		for _, tg := range order {
			f, err := measure(ctx, cfg, tg)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, tg.name, err)
			}
			all[tg.name] = append(all[tg.name], f)
			fmt.Fprintf(cfg.Log, "round %d %-30s p50 %8s p99 %8s %8.0f calls/s\n", r+1, tg.name, f.p50, f.p99, f.rate)
		}
	}
	report(cfg, targets, all)
	return nil
}

// measure opens a session to tg, warms it up, times Calls sequential
// calls, then Workers×PerWorker concurrent ones.
func measure(ctx context.Context, cfg Config, tg target) (figures, error) {
	cs, closeFn, err := tg.open(ctx)
	if err != nil {
		return figures{}, err
	}
	defer closeFn()
	call := func() error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: Tool, Arguments: map[string]any{"sku": "A-1001"}})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error")
		}
		return err
	}
	for range 50 {
		if err := call(); err != nil {
			return figures{}, err
		}
	}
	lat := make([]time.Duration, 0, cfg.Calls)
	for range cfg.Calls {
		start := time.Now()
		if err := call(); err != nil {
			return figures{}, err
		}
		lat = append(lat, time.Since(start))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	var wg sync.WaitGroup
	errs := make(chan error, cfg.Workers)
	start := time.Now()
	for range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range cfg.PerWorker {
				if err := call(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return figures{}, err
	}
	return figures{p50: pct(lat, 50), p99: pct(lat, 99), rate: float64(cfg.Workers*cfg.PerWorker) / elapsed.Seconds()}, nil
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}
