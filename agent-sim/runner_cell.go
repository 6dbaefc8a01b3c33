package agentsim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// ExpectMaxCallsID is the ID of the finding a run gets when it makes more
// calls than the scenario's expect.max_calls.
const ExpectMaxCallsID = "EXPECT"

// runCell runs one scenario under one persona and host: a fresh fault
// layer, a fresh server, the agent loop, side effects, the judge.
func runCell(ctx context.Context, c cell, opts RunOptions) (rep report.RunReport) {
	sc := c.sc
	start := time.Now()
	rep = report.RunReport{Scenario: sc.Name, Persona: c.persona.Name(), Host: c.host.Name, Faults: ruleFaults(sc), Seed: c.seed,
		Budget: sc.Agent.Budget, StartedAt: start, Calls: []transcript.Call{}, SideEffects: []transcript.SideEffectCount{}, Findings: []judge.Finding{},
		Warnings: sc.Warnings()}
	defer func() { rep.DurationMS = time.Since(start).Milliseconds() }()
	log := opts.Logger.With().Str("scenario", sc.Name).Str("persona", rep.Persona).Str("host", rep.Host).Logger()

	bus := inject.NewBus(inject.BusOptions{Clock: opts.Clock})
	events := collect(bus)
	// No rule expires during a run: a run is short, and a rule that
	// vanished midway would make the run depend on the wall clock.
	reg := inject.New(inject.Options{Logger: log, Seed: c.seed, Clock: opts.Clock, Bus: bus, DefaultTTL: -1})
	closeReg := func() {
		if err := reg.Close(); err != nil {
			log.Warn().Err(err).Msg("closing the fault layer")
		}
	}
	ups, stopBuiltins, err := startUpstreams(ctx, sc, reg, opts.Builtins, opts.CA)
	// Built-in upstreams stop after the proxies in front of them.
	defer func() {
		if err := stopBuiltins(); err != nil {
			log.Warn().Err(err).Msg("stopping a built-in upstream")
		}
	}()
	if err != nil {
		closeReg()
		events.stop()
		rep.Error = err.Error()
		return rep
	}
	// Quoted text names what this run created by stable names, once
	// everything else (features, leaks, findings) has read the raw text.
	var files map[string]string // the rendered files' redaction, once drive made them
	defer func() {
		placeholders := sc.Placeholders(ups, opts.Self)
		maps.Copy(placeholders, files)
		report.Redact(&rep, placeholders)
	}()
	if err := reg.ReplaceRules(config.RuleSet(sc.Rules)); err != nil {
		closeReg()
		events.stop()
		rep.Error = config.LocateRuleError(sc.Rules, err).Error()
		return rep
	}
	probes := newProbeRun(sc, ups, opts.Self)
	probes.before(ctx)

	loop, err := drive(ctx, c, reg, ups, opts.Self)
	// Every event is published once the server is gone and the proxies
	// have closed: only then are the counts complete.
	closeReg()
	evs := events.stop()
	rep.Warnings = append(rep.Warnings, proxyWarnings(sc, evs)...)
	if loop != nil {
		files = loop.files
		rep.ProtocolVersion = loop.protocol
		if loop.exit.Exited {
			exit := loop.exit
			rep.Server = &exit
		}
		rep.Calls, rep.Converged, rep.StopReason = loop.calls, loop.converged, loop.stopReason
	}
	if err != nil {
		rep.Error = err.Error()
		rep.ScenarioError = errors.Is(err, scenario.ErrMismatch)
		var se *driver.StartError
		if errors.As(err, &se) && se.Exit != nil {
			rep.Server = se.Exit
		}
		if loop == nil {
			return rep
		}
	}
	attribute(rep.Calls, evs, config.RuleSet(sc.Rules))
	attributeHolds(rep.Calls, loop.spans, evs)
	rep.SideEffects = mergeSideEffects(sc, countSideEffects(sc, evs), probes.after(ctx))
	rep.Findings = judge.Judge(judge.Input{
		Calls: rep.Calls, Tools: loop.tools, Converged: rep.Converged, Budget: rep.Budget,
		SideEffects: rep.SideEffects, ProtocolVersion: rep.ProtocolVersion,
		WriteTools: writeTools(sc, loop.tools, evs), ValidationCalls: validationCalls(sc, rep.Calls),
		CallTimeout: sc.Agent.CallTimeout, Internal: runInternal(sc, ups, opts.Self),
	})
	if sc.Expect.MaxCalls > 0 && len(rep.Calls) > sc.Expect.MaxCalls {
		rep.Findings = append(rep.Findings, judge.Finding{ID: ExpectMaxCallsID, Severity: judge.SeverityError,
			Title:    "the agent made more calls than the scenario expects",
			Evidence: fmt.Sprintf("%d calls; expect.max_calls is %d", len(rep.Calls), sc.Expect.MaxCalls),
			Hint:     "make the reply end the loop sooner: state the outcome and whether retrying helps"})
	}
	return rep
}

// loopResult is what the agent loop produced.
type loopResult struct {
	tools      []transcript.Tool
	protocol   string
	calls      []transcript.Call
	converged  bool
	stopReason string
	exit       transcript.ProcessExit
	// spans are the calls' start and deadline, on the fault layer's
	// clock, to compare with its events (see attributeHolds).
	spans []callSpan
	// files maps the rendered files' paths to their templates.
	files map[string]string
}

// drive starts the server and runs the agent loop: call, observe through
// the host, extract, decide, until the steps are done, the persona stops
// or the budget is spent.
func drive(ctx context.Context, c cell, reg *inject.Registry, ups []inject.UpstreamInfo, self string) (*loopResult, error) {
	sc := c.sc
	spec, files, err := sc.ResolveServerRun(ups, self)
	defer func() { _ = files.Remove() }()
	if err == nil && sc.ProxyEnv != nil {
		err = applyProxyEnv(sc, &spec, reg, ups, files)
	}
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	dopts := driver.Options{CallTimeout: sc.Agent.CallTimeout, LateGrace: sc.Agent.LateGrace}
	sess, err := startServer(ctx, c.starts, spec, dopts)
	if err != nil {
		return nil, err
	}
	res := &loopResult{tools: sess.Tools(), protocol: sess.ProtocolVersion(), calls: []transcript.Call{}, files: files.Placeholders()}
	// sess is replaced when the host reconnects after a crash; the last
	// one is closed here.
	defer func() { res.exit = sess.Close() }()
	if err := scenario.Check(sc, res.tools); err != nil {
		return nil, err
	}
	host := newCrashHost(c.host, spec, dopts, c.starts)

	step := 0
	tool, args := sc.Steps[0].Tool, sc.Steps[0].Args
	attempts := map[string]int{}
	for {
		if len(res.calls) >= sc.Agent.Budget {
			res.stopReason = "budget spent"
			return res, nil
		}
		if err := ctx.Err(); err != nil {
			res.stopReason = "cancelled"
			return res, fmt.Errorf("run cancelled: %w", err)
		}
		n := len(res.calls) + 1
		key := transcript.CallKey(tool, args)
		attempts[key]++
		reg.SetCall(&rules.CallContext{Tool: tool, Args: args, Attempt: attempts[key], Call: n})
		res.spans = append(res.spans, newCallSpan(reg.Table().Now(), sc.Agent.CallTimeout))
		o := sess.Call(ctx, tool, args)
		reg.SetCall(nil)
		rec := transcript.Call{N: n, Step: step + 1, Tool: tool, Args: args, Attempt: attempts[key],
			Channel: o.Channel, Code: o.Code, Text: o.Text, UpstreamErrorAsSuccess: o.UpstreamErrorAsSuccess,
			Structured: o.Structured, ElapsedMS: o.Elapsed.Milliseconds(), Observation: c.host.Observe(o),
			Crash: cloneCrash(o.Crash), Late: o.Late}
		rec.SetSignals(res.tools)
		st := sc.Steps[step]
		rec.Decision = c.persona.Decide(persona.Turn{Step: step + 1, StepTool: st.Tool, StepArgs: st.Args, Call: rec,
			History: res.calls, Tools: res.tools, Followups: sc.Followups, Budget: sc.Agent.Budget, Used: n})
		res.calls = append(res.calls, rec)
		d := rec.Decision
		switch d.Action {
		case transcript.ActRetry, transcript.ActRetryChanged, transcript.ActCallTool, transcript.ActCheckState:
			if d.Tool != "" {
				tool = d.Tool
			}
			if d.Args != nil || d.Tool != "" {
				args = maps.Clone(d.Args)
			}
		case transcript.ActNext:
			step++
			if step == len(sc.Steps) {
				res.converged, res.stopReason = true, d.Reason
				return res, nil
			}
			tool, args = sc.Steps[step].Tool, sc.Steps[step].Args
		default: // ActStop, or an action this runner does not know
			res.converged, res.stopReason = true, d.Reason
			return res, nil
		}
		if rec.Crash != nil {
			// The agent means to go on, but the server is gone.
			var ok bool
			if sess, ok = host.afterCrash(ctx, sess, res); !ok {
				return res, nil
			}
		}
	}
}
