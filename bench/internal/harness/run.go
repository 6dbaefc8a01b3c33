package harness

import (
	"context"
	"fmt"
	"time"
)

// runner carries one run's state.
type runner struct {
	cfg      *Config
	l        *launcher
	st       *store
	failures int // loads discarded because a worker failed
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Log, format+"\n", args...)
}

// Run starts the upstream and the proxies, measures every target round by
// round, and writes the report to cfg.Out. The programs are stopped when
// Run returns, whatever happened.
func Run(ctx context.Context, cfg Config) error {
	_, err := run(ctx, cfg)
	return err
}

// run is Run, returning the figures too (for tests).
func run(ctx context.Context, cfg Config) (*store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	started := time.Now()
	up, _, err := startUpstream(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	defer up.stop()
	l := &launcher{cfg: &cfg, up: up.addrs}

	plain, err := l.launch(ctx, kindPlain, roleHTTP, roleBulk, roleEcho)
	if err != nil {
		return nil, err
	}
	defer plain.stop()
	mcp, err := l.launch(ctx, kindMcpchaos, roleHTTP, roleBulk, roleEcho, roleWeb, roleFwd)
	if err != nil {
		return nil, err
	}
	defer mcp.stop()
	var toxi *instance
	if cfg.Toxiproxy != "" {
		if toxi, err = l.launch(ctx, kindToxi, roleHTTP, roleBulk, roleEcho); err != nil {
			return nil, err
		}
		defer toxi.stop()
	}
	procs := []*instance{up, plain, mcp, toxi}
	targets := buildTargets(up, plain, mcp, toxi)

	r := &runner{cfg: &cfg, l: l, st: newStore(cfg.Rounds)}
	for round := range cfg.Rounds {
		r.logf("round %d/%d", round+1, cfg.Rounds)
		if err := r.round(ctx, round, rotate(targets, round)); err != nil {
			return nil, err
		}
		for _, p := range procs {
			if p != nil {
				if err := p.p.alive(); err != nil {
					return nil, err
				}
			}
		}
	}
	if cfg.Raw != "" {
		if err := r.st.writeRaw(cfg.Raw); err != nil {
			return nil, err
		}
	}
	return r.st, writeReport(cfg.Out, &cfg, r.st, targets, r.failures, time.Since(started))
}

// round runs every test once, each across all targets before the next
// test: the targets of one figure are measured minutes apart at most.
func (r *runner) round(ctx context.Context, round int, order []*target) error {
	for _, h := range httpLoads(r.cfg) {
		for _, t := range order {
			if err := r.measureHTTP(ctx, round, h, t); err != nil {
				return err
			}
		}
	}
	tests := []func(context.Context, int, *target) error{r.measureBulk, r.measureBig, r.measureMemory, r.measureRuleChange}
	for _, test := range tests {
		for _, t := range order {
			if err := test(ctx, round, t); err != nil {
				return err
			}
		}
	}
	return nil
}

func startUpstream(ctx context.Context, cfg *Config) (*instance, map[string]string, error) {
	p, addrs, err := startProc(ctx, kindUpstream, cfg.BinDir+"/upstream", nil, nil, true)
	if err != nil {
		return nil, nil, err
	}
	return &instance{kind: kindUpstream, p: p, addrs: addrs}, addrs, nil
}
