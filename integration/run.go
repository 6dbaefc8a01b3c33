package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/api"
)

// DefaultRunTimeout bounds [Chaos.RunScenario] when its context has no
// deadline: a scenario's calls each have their own timeout, so a run that
// lasts longer is stuck.
const DefaultRunTimeout = 5 * time.Minute

// exitGrace is how long a broken connection to the API waits for Docker
// to report the container stopped, to tell a killed container from a
// network error.
const exitGrace = 5 * time.Second

// ErrRunFailed is wrapped by the error [Chaos.RunScenario] returns when
// the run did not complete: it failed or was cancelled in the server, or
// one of its matrix cells could not run (its server would not start).
var ErrRunFailed = errors.New("the run failed")

// Vars are a scenario's variables: each {{ var "NAME" }} in the YAML is
// replaced by Vars["NAME"] before the run is posted. A variable the
// scenario uses and Vars lacks is an error, and so is one in Vars that
// the scenario never uses; both name it (docs/scenarios.md, "Variables").
type Vars map[string]string

// RunScenario runs the scenario doc (YAML, as `mcpchaos run` reads it) in the
// mcpchaos container through POST /v1/runs, waits for it and returns its
// report (docs/report.md). vars fill the scenario's {{ var "NAME" }}; nil
// for none.
//
// The scenario runs inside the container: its upstreams' listen addresses
// and targets, and its server's url, are as seen from there (container
// names on a shared network, or [HostIP] for the test process). Each
// matrix cell (persona × host) opens its own proxies, two cells at a
// time: a scenario whose upstream listens on a fixed port must have one
// cell (one persona, one host), or use [Chaos.RunScenarioWith] to pick
// one.
//
// It returns an error wrapping [ErrRunFailed] when the run did not
// complete (with what report there is); when the container stopped during
// the run, the error wraps [ErrExited] too. Never a hang: when ctx has no
// deadline the wait is bounded by [DefaultRunTimeout], and an error says
// so when that bound ends it.
func (c *Chaos) RunScenario(ctx context.Context, doc string, vars Vars) (report.Report, error) {
	return c.RunScenarioWith(ctx, doc, vars, api.RunParams{})
}

// RunScenarioWith is [Chaos.RunScenario] with the run's parameters: a
// seed, personas and hosts overriding the scenario's, a document name for
// error messages.
func (c *Chaos) RunScenarioWith(ctx context.Context, doc string, vars Vars, p api.RunParams) (report.Report, error) {
	name := p.Name
	if name == "" {
		name = "scenario"
	}
	expanded, used, err := scenario.ExpandVars(name, []byte(doc), vars)
	if err != nil {
		return report.Report{}, fmt.Errorf("integration: %w", err)
	}
	if u := scenario.UnusedVars(vars, used); len(u) > 0 {
		return report.Report{}, fmt.Errorf("integration: variable %q is given but the scenario never uses it ({{ var %q }})", u[0], u[0])
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, DefaultRunTimeout,
			fmt.Errorf("the run took longer than integration.DefaultRunTimeout (%v), the bound of a context without a deadline", DefaultRunTimeout))
		defer cancel()
	}
	run, err := c.Client.StartRun(ctx, expanded, p)
	if err != nil {
		return report.Report{}, c.explain(ctx, fmt.Errorf("integration: starting the run: %w", err))
	}
	run, err = c.waitRun(ctx, run.ID)
	if err != nil {
		if cause := context.Cause(ctx); ctx.Err() != nil && !errors.Is(cause, ctx.Err()) {
			err = fmt.Errorf("%w (%w)", err, cause)
		}
		return report.Report{}, err
	}
	var rep report.Report
	if len(run.Report) > 0 {
		if err := json.Unmarshal(run.Report, &rep); err != nil {
			return rep, fmt.Errorf("integration: run %s: decoding its report: %w", run.ID, err)
		}
		c.mu.Lock()
		c.last = &rep
		c.mu.Unlock()
	}
	if run.Status != api.RunDone {
		return rep, fmt.Errorf("integration: run %s: %w: status %s: %s", run.ID, ErrRunFailed, run.Status, run.Error)
	}
	var errs []error
	for _, r := range rep.Runs {
		if r.Error != "" {
			errs = append(errs, fmt.Errorf("%s (%s, %s): %s", r.Scenario, r.Persona, r.Host, r.Error))
		}
	}
	if len(errs) > 0 {
		return rep, fmt.Errorf("integration: run %s: %w: %w", run.ID, ErrRunFailed, errors.Join(errs...))
	}
	return rep, nil
}

// LastReport returns the report of the latest run that returned one, or
// nil before any.
func (c *Chaos) LastReport() *report.Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// waitRun long-polls the run while watching the container: a killed
// container ends the wait with ErrExited even when the connection to it
// would hang (a dead container behind a NAT rule never resets it).
func (c *Chaos) waitRun(ctx context.Context, id string) (api.Run, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		// Returns when the container stops, or when ctx is cancelled.
		code, err := c.pool.Client.WaitContainerWithContext(c.id, ctx)
		if err == nil {
			cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
			defer ccancel()
			cancel(c.exitError(cctx, code))
		}
	}()
	defer func() {
		cancel(nil)
		<-watched
	}()
	run, err := c.Client.WaitRun(ctx, id)
	if err == nil {
		return run, nil
	}
	var ae *api.Error
	if !errors.As(err, &ae) && ctx.Err() == nil {
		// A broken connection comes before Docker reports the container
		// stopped: give the watcher a moment to say so.
		t := time.NewTimer(exitGrace)
		select {
		case <-watched:
		case <-t.C:
		}
		t.Stop()
	}
	if cause := context.Cause(ctx); errors.Is(cause, ErrExited) {
		return run, fmt.Errorf("integration: run %s: %w: %w", id, ErrRunFailed, cause)
	}
	return run, c.explain(ctx, fmt.Errorf("integration: run %s: %w: %w", id, ErrRunFailed, err))
}

// explain adds the container's state to an API error: a refused or
// broken connection usually means it stopped.
func (c *Chaos) explain(ctx context.Context, err error) error {
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	defer cancel()
	if cerr := c.checkRunning(ictx); errors.Is(cerr, ErrExited) {
		return fmt.Errorf("%w (%w)", err, cerr)
	}
	return err
}
