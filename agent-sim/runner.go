package agentsim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// RunOptions configure [Run]. The zero value is usable.
type RunOptions struct {
	// Seed is the run's seed; each matrix cell derives its own from it
	// and the cell's index, so one cell replays alone.
	Seed uint64
	// Personas and Hosts, when set, replace every scenario's own.
	Personas, Hosts []string
	// Concurrency bounds how many cells run at once; 0 means
	// [DefaultConcurrency] (bounded by memory, not by cores: cells mostly
	// wait).
	Concurrency int
	// Logger receives progress notes and the fault layer's logs.
	Logger zerolog.Logger
	// Clock tells the fault layer the time (TTLs); nil means the system
	// clock.
	Clock rules.Clock
	// Progress, when set, is called after each cell with the number done
	// and the total, from the goroutine that finished the cell.
	Progress func(done, total int)
	// Shard and Shards split the matrix across CI workers: this run makes
	// every Shards-th cell starting at the Shard-th (1-based). Both zero:
	// the whole matrix.
	Shard, Shards int
	// Self is the path of the running mcpchaos binary, for scenarios
	// whose server is {{ mcpchaos }} (the demo server); empty when not
	// run by mcpchaos.
	Self string
	// Builtins are the upstreams a scenario may name as target
	// "builtin:NAME"; each run of the matrix starts its own.
	Builtins map[string]Builtin
	// CA, when set, signs the certificates of every run's forward
	// upstream that intercepts TLS (server.proxy_env with intercept_tls);
	// nil makes one in memory for each run. Its key is never written,
	// logged or reported either way.
	CA *inject.CA
}

// ErrUsage wraps a problem with the run's options (an unknown persona or
// host override): nothing ran.
var ErrUsage = errors.New("invalid run options")

// cell is one entry of the matrix.
type cell struct {
	index   int
	sc      *scenario.Scenario
	persona persona.Persona
	host    persona.HostProfile
	seed    uint64
	// starts is the matrix's start slots (see startSlots); nil: unbounded.
	starts chan struct{}
}

// Run runs the matrix scenarios × personas × hosts, at most
// opts.Concurrency cells at a time, and returns the report. Runs are in
// matrix order (scenario, then persona, then host) whatever order they
// start or finish in; the longest-expected cells start first (see
// [expectedLength]). A cell whose server cannot start has its Error set;
// the error returned is for bad options (ErrUsage) or a cancelled ctx, with the runs
// finished so far. A scenario that does not fit its server's tools
// (scenario.ErrMismatch) is reported in its runs (RunReport.ScenarioError,
// no call, no finding) and checked once: its cells not yet started are
// not run.
func Run(ctx context.Context, scenarios []*scenario.Scenario, opts RunOptions) (report.Report, error) {
	cells, err := matrix(scenarios, opts)
	if err != nil {
		return report.New(opts.Seed, nil), err
	}
	if cells, err = shard(cells, opts.Shard, opts.Shards); err != nil {
		return report.New(opts.Seed, nil), err
	}
	workers := opts.Concurrency
	if workers <= 0 {
		workers = DefaultConcurrency()
	}
	runs := make([]report.RunReport, len(cells))
	ran := make([]bool, len(cells))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	sem := make(chan struct{}, workers)
	starts := make(chan struct{}, startSlots())
	var gate mismatchGate
	for _, i := range longestFirst(cells) {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		c := cells[i]
		c.starts = starts
		go func(slot int, c cell) {
			defer wg.Done()
			defer func() { <-sem }()
			r, skipped := gate.skip(c)
			if !skipped {
				r = runCell(ctx, c, opts)
				gate.record(c, r)
			}
			mu.Lock()
			runs[slot], ran[slot] = r, true
			done++
			n := done
			mu.Unlock()
			if opts.Progress != nil {
				opts.Progress(n, len(cells))
			}
		}(i, c)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		var finished []report.RunReport
		for i, r := range runs {
			if ran[i] {
				finished = append(finished, r)
			}
		}
		return report.New(opts.Seed, finished), fmt.Errorf("run cancelled: %w", err)
	}
	return report.New(opts.Seed, runs), nil
}

// shard keeps every shards-th cell of the matrix, starting at the
// index-th (1-based), so that n CI workers can split one matrix. Cells
// keep the seeds of their place in the whole matrix: a cell replays the
// same whether it ran sharded or not.
func shard(cells []cell, index, shards int) ([]cell, error) {
	if shards == 0 && index == 0 {
		return cells, nil
	}
	if shards < 1 || index < 1 || index > shards {
		return nil, fmt.Errorf("%w: shard %d/%d: want i/n with 1 ≤ i ≤ n", ErrUsage, index, shards)
	}
	var out []cell
	for _, c := range cells {
		if c.index%shards == index-1 {
			out = append(out, c)
		}
	}
	return out, nil
}

// matrix lists the cells, resolving personas and hosts up front so that
// a bad override fails before anything starts.
func matrix(scenarios []*scenario.Scenario, opts RunOptions) ([]cell, error) {
	var cells []cell
	for _, sc := range scenario.ExpandCells(scenarios) {
		personas, hosts := sc.Agent.Personas, sc.Agent.Hosts
		if len(opts.Personas) > 0 {
			personas = opts.Personas
		}
		if len(opts.Hosts) > 0 {
			hosts = opts.Hosts
		}
		if len(personas) == 0 {
			personas = []string{scenario.DefaultPersona}
		}
		if len(hosts) == 0 {
			for _, h := range persona.BuiltinHosts() {
				hosts = append(hosts, h.Name)
			}
		}
		if err := checkBuiltins(sc, opts.Builtins); err != nil {
			return nil, err
		}
		for _, pn := range personas {
			p, err := persona.ByName(pn)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrUsage, err)
			}
			for _, hn := range hosts {
				h, err := persona.HostByName(hn, sc.Agent.HostProfiles)
				if err != nil {
					return nil, fmt.Errorf("%w: scenario %q: %w", ErrUsage, sc.Name, err)
				}
				i := len(cells)
				cells = append(cells, cell{index: i, sc: sc, persona: p, host: h, seed: CellSeed(opts.Seed, i)})
			}
		}
	}
	return cells, nil
}

func builtinNames(b map[string]Builtin) string {
	if len(b) == 0 {
		return "none are available"
	}
	names := slices.Sorted(maps.Keys(b))
	for i, n := range names {
		names[i] = scenario.BuiltinPrefix + n
	}
	return "available: " + strings.Join(names, ", ")
}

// CellSeed derives the seed of the ith matrix cell from the run's seed
// (SplitMix64), so that cells draw independent faults and a report's
// per-run seed identifies the cell's draws.
func CellSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
