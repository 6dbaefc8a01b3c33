package agentsim

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// CheckResult is what checking one scenario against its server found.
type CheckResult struct {
	Scenario *scenario.Scenario
	// Tools are the names the server listed, in its order.
	Tools []string
	// Err is nil when the scenario fits the server. It wraps
	// scenario.ErrMismatch when it does not (see [scenario.Check]); any
	// other error means the check could not happen (the server would not
	// start, or an upstream could not be set up).
	Err error
}

// Check starts each scenario's server once, with its upstreams behind
// proxies but no fault rule, lists its tools, checks the scenario against
// them ([scenario.Check]) and stops it: no fault, no agent loop, no
// report. At most opts.Concurrency servers run at once; the results are
// in the scenarios' order. The error is for bad options (ErrUsage) or a
// cancelled ctx.
func Check(ctx context.Context, scenarios []*scenario.Scenario, opts RunOptions) ([]CheckResult, error) {
	for _, sc := range scenarios {
		if err := checkBuiltins(sc, opts.Builtins); err != nil {
			return nil, err
		}
	}
	workers := opts.Concurrency
	if workers <= 0 {
		workers = DefaultConcurrency()
	}
	out := make([]CheckResult, len(scenarios))
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers)
	for i, sc := range scenarios {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			tools, err := checkOne(ctx, sc, opts)
			out[i] = CheckResult{Scenario: sc, Tools: tools, Err: err}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("check cancelled: %w", err)
	}
	return out, nil
}

// checkOne starts sc's server as a run would, without rules, and checks
// sc (each of its matrix cells) against the tools it lists.
func checkOne(ctx context.Context, sc *scenario.Scenario, opts RunOptions) ([]string, error) {
	tools, err := ListTools(ctx, sc, opts)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names, scenario.CheckCells(sc, tools)
}

// ListTools starts sc's server as a run would (its upstreams behind
// proxies, its files rendered), without rules, and returns the tools it
// lists.
func ListTools(ctx context.Context, sc *scenario.Scenario, opts RunOptions) ([]transcript.Tool, error) {
	if err := checkBuiltins(sc, opts.Builtins); err != nil {
		return nil, err
	}
	log := opts.Logger.With().Str("scenario", sc.Name).Logger()
	reg := inject.New(inject.Options{Logger: log, Seed: opts.Seed, Clock: opts.Clock, DefaultTTL: -1})
	ups, stopBuiltins, err := startUpstreams(ctx, sc, reg, opts.Builtins, opts.CA)
	defer func() {
		if err := stopBuiltins(); err != nil {
			log.Warn().Err(err).Msg("stopping a built-in upstream")
		}
	}()
	defer func() {
		if err := reg.Close(); err != nil {
			log.Warn().Err(err).Msg("closing the fault layer")
		}
	}()
	if err != nil {
		return nil, err
	}
	spec, files, err := sc.ResolveServerRun(ups, opts.Self)
	defer func() { _ = files.Remove() }()
	if err == nil && sc.ProxyEnv != nil {
		err = applyProxyEnv(sc, &spec, reg, ups, files)
	}
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	sess, err := driver.Connect(ctx, spec, driver.Options{CallTimeout: sc.Agent.CallTimeout})
	if err != nil {
		return nil, err
	}
	tools := sess.Tools()
	sess.Close()
	return tools, nil
}

// checkBuiltins reports a builtin: target that opts do not provide.
func checkBuiltins(sc *scenario.Scenario, builtins map[string]Builtin) error {
	for _, u := range sc.Upstreams {
		if name, ok := strings.CutPrefix(u.Target, scenario.BuiltinPrefix); ok && builtins[name] == nil {
			return fmt.Errorf("%w: scenario %q: upstream %q: %q is not a built-in upstream here (%s)",
				ErrUsage, sc.Name, u.Name, u.Target, builtinNames(builtins))
		}
	}
	return nil
}

// mismatchGate remembers the scenarios found not to fit their server, so
// that the matrix checks each scenario once: a cell of such a scenario
// that has not started yet is not run (its server is the same) and gets
// the same error.
type mismatchGate struct {
	mu  sync.Mutex
	bad map[*scenario.Scenario]string
}

// skip returns the report of c when its scenario is known not to fit.
func (g *mismatchGate) skip(c cell) (report.RunReport, bool) {
	g.mu.Lock()
	msg, bad := g.bad[c.sc]
	g.mu.Unlock()
	if !bad {
		return report.RunReport{}, false
	}
	return report.RunReport{Scenario: c.sc.Name, Persona: c.persona.Name(), Host: c.host.Name, Faults: ruleFaults(c.sc), Seed: c.seed,
		Budget: c.sc.Agent.Budget, Calls: []transcript.Call{}, SideEffects: []transcript.SideEffectCount{}, Findings: []judge.Finding{},
		Error: msg, ScenarioError: true}, true
}

// record notes the outcome of a cell that ran.
func (g *mismatchGate) record(c cell, r report.RunReport) {
	if !r.ScenarioError {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.bad == nil {
		g.bad = map[*scenario.Scenario]string{}
	}
	g.bad[c.sc] = r.Error
}
