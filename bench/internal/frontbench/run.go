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

	"github.com/mcpchaos/mcpchaos/bench/internal/sysproc"
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
	open       func(ctx context.Context) (opened, error)
}

// opened is a session to a target, with the processes of its front (whose
// CPU time is the front's cost; none for a direct target).
type opened struct {
	cs    *mcp.ClientSession
	close func()
	front []int // pids
}

// figures are one target's measurements in one round.
type figures struct {
	p50, p99 time.Duration // sequential call latency
	rate     float64       // calls/s with Workers concurrent callers
	cpu      time.Duration // the front's CPU per call, over every call measured
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
	servePID := serve.cmd.Process.Pid
	stdio := func(front bool, withServe bool, argv ...string) func(ctx context.Context) (opened, error) {
		return func(ctx context.Context) (opened, error) {
			s, err := startStdio(ctx, argv...)
			if err != nil {
				return opened{}, err
			}
			o := opened{cs: s.cs, close: s.close}
			if front {
				o.front = append(o.front, s.cmd.Process.Pid)
			}
			if withServe {
				o.front = append(o.front, servePID)
			}
			return o, nil
		}
	}
	httpTo := func(endpoint string, front bool) func(ctx context.Context) (opened, error) {
		return func(ctx context.Context) (opened, error) {
			tr := &http.Transport{MaxIdleConnsPerHost: cfg.Workers + 2}
			cs, err := client().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
				HTTPClient: &http.Client{Transport: tr}, DisableStandaloneSSE: true}, nil)
			if err != nil {
				return opened{}, err
			}
			o := opened{cs: cs, close: func() { _ = cs.Close(); tr.CloseIdleConnections() }}
			if front {
				o.front = []int{servePID}
			}
			return o, nil
		}
	}
	targets := []target{
		{name: "stdio direct", open: stdio(false, false, cfg.Self, "serve-stdio")},
		{name: "stdio through wrap", base: "stdio direct", open: stdio(true, false, cfg.Mcpchaos, "wrap", "--", cfg.Self, "serve-stdio")},
		{name: "stdio through wrap --report", base: "stdio direct",
			open: stdio(true, true, cfg.Mcpchaos, "wrap", "--report", apiURL, "--", cfg.Self, "serve-stdio")},
		{name: "http direct", open: httpTo(url+"/mcp", false)},
		{name: "http through the front", base: "http direct", open: httpTo(frontURL, true)},
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
			fmt.Fprintf(cfg.Log, "round %d %-30s p50 %8s p99 %8s %8.0f calls/s, front CPU %s/call\n", r+1, tg.name, f.p50, f.p99, f.rate, f.cpu)
		}
	}
	report(cfg, targets, all)
	return nil
}

// measure opens a session to tg, warms it up, times Calls sequential
// calls, then Workers×PerWorker concurrent ones.
func measure(ctx context.Context, cfg Config, tg target) (figures, error) {
	o, err := tg.open(ctx)
	if err != nil {
		return figures{}, err
	}
	defer o.close()
	cs := o.cs
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
	cpu0, err := cpuOf(o.front)
	if err != nil {
		return figures{}, err
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
	cpu1, err := cpuOf(o.front)
	if err != nil {
		return figures{}, err
	}
	return figures{p50: pct(lat, 50), p99: pct(lat, 99), rate: float64(cfg.Workers*cfg.PerWorker) / elapsed.Seconds(),
		cpu: (cpu1 - cpu0) / time.Duration(cfg.Calls+cfg.Workers*cfg.PerWorker)}, nil
}

// cpuOf sums the CPU time the processes have used (user and system, from
// /proc: 10 ms ticks, so a phase of thousands of calls is needed).
func cpuOf(pids []int) (time.Duration, error) {
	var sum time.Duration
	for _, pid := range pids {
		d, err := sysproc.CPU(pid)
		if err != nil {
			return 0, err
		}
		sum += d
	}
	return sum, nil
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}
