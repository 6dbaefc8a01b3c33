package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
)

func runScenarios(ctx context.Context, args []string, io stdio) int {
	fs := newFlags("run", "[flags] SCENARIO.yaml|DIR...", `
Run scenario files: start the MCP server each one names, put a proxy in
front of each of its upstreams, inject the scenario's faults, drive the
server with the scripted agent (every persona × every host profile), and
report what happened and what is wrong.

Before any step runs, each scenario is checked against the server: the
tools its steps and followups name must be in tools/list, and their
arguments must pass the tool's input schema (a step marked invalid: true
is exempt from the schema). A scenario that does not fit stops with exit
2 and file:line, whatever the server's replies. --check does only that:
start each server once with its upstreams, list its tools, check, stop;
no fault, no agent, no report.

Exit codes: 0 no finding at or above --fail-on (with --check: every
scenario fits); 1 findings; 2 usage or scenario error (a scenario that
does not parse or does not fit its server); 3 the run itself failed (a
server would not start).`, io)
	var rf reportFlags
	rf.register(fs)
	var mf matrixFlags
	mf.register(fs, 0)
	check := fs.Bool("check", false, "only check each scenario against its server's tools and input schemas (no faults, no agent loop), and exit 0 or 2")
	apiURL := fs.String("api", "", "run on the mcpchaos serve at this URL (POST /v1/runs) instead of here; token from MCPCHAOS_TOKEN")
	vars := varFlags{}
	fs.Var(vars, "var", "NAME=VALUE fills {{ var \"NAME\" }} in the scenarios; repeatable")
	if done, code := parse(fs, args, io); done {
		return code
	}
	if err := rf.validate(); err != nil {
		fmt.Fprintf(io.err, "mcpchaos run: %v\n", err)
		return exitUsage
	}
	_, shardN, err := parseShard(mf.shard)
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos run: %v\n", err)
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(io.err, "mcpchaos run: give at least one scenario file or directory")
		fs.Usage()
		return exitUsage
	}
	paths, err := scenarioPaths(fs.Args())
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos run: %v\n", err)
		return exitUsage
	}
	scenarios, docs, err := loadScenarios(paths, vars)
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos run: %v\n", err)
		return exitUsage
	}
	for _, sc := range scenarios {
		for _, w := range sc.Warnings() {
			fmt.Fprintf(io.err, "mcpchaos run: warning: %s\n", w)
		}
	}
	if *check && (*apiURL != "" || shardN > 0) {
		fmt.Fprintln(io.err, "mcpchaos run: --check runs here, on the whole set of scenarios; it does not apply with --api or --shard")
		return exitUsage
	}
	if *apiURL != "" && shardN > 0 {
		fmt.Fprintln(io.err, "mcpchaos run: --shard splits a local run; it does not apply with --api")
		return exitUsage
	}
	if *apiURL != "" {
		rf.failOnSet = flagSet(fs, "fail-on")
		return runRemote(ctx, *apiURL, paths, docs, scenarios, splitList(mf.personas), splitList(mf.hosts), rf, io)
	}
	opts, err := builtinRunOptions(rf.seed, mf.concurrency)
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos run: %v\n", err)
		return exitFailed
	}
	if *check {
		return checkScenarios(ctx, scenarios, opts, io)
	}
	if err := mf.apply(&opts); err != nil {
		fmt.Fprintf(io.err, "mcpchaos run: %v\n", err)
		return exitUsage
	}
	rf.failOnSet = flagSet(fs, "fail-on")
	return runAndReport(ctx, scenarios, opts, rf, io)
}

// runAndReport runs scenarios and writes the report; it is shared by run
// and demo.
func runAndReport(ctx context.Context, scenarios []*scenario.Scenario, opts agentsim.RunOptions, rf reportFlags, std stdio) int {
	failOn, write, ok := rf.outputs("mcpchaos", std)
	if !ok {
		return exitUsage
	}
	progress := newProgress(std.err)
	opts.Progress = progress.update
	report, err := agentsim.Run(ctx, scenarios, opts)
	progress.done()
	if errors.Is(err, agentsim.ErrUsage) {
		// An unknown --persona or --host: nothing ran.
		fmt.Fprintf(std.err, "mcpchaos: %v\n", err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(std.err, "mcpchaos: %v\n", err)
		return exitFailed
	}
	return writeReport(report, scenarios, failOn, write, rf, std)
}

// writeReport writes report as rf asks and returns the exit code: 3 when
// a run failed, 1 on findings the scenarios' or --fail-on's severity.
func writeReport(report report.Report, scenarios []*scenario.Scenario, failOn judge.Severity, write writeFunc, rf reportFlags, std stdio) int {
	if rf.base != nil {
		report = report.ApplyBaseline(*rf.base, rf.baseline)
	}
	var w io.Writer = std.out
	color := false
	if rf.out != "" {
		f, err := os.Create(rf.out)
		if err != nil {
			fmt.Fprintf(std.err, "mcpchaos: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		w = f
	} else if f, ok := std.out.(*os.File); ok {
		color = isatty.IsTerminal(f.Fd())
	}
	if err := write(report, w, color); err != nil {
		fmt.Fprintf(std.err, "mcpchaos: writing the report: %v\n", err)
		return exitFailed
	}
	if rf.out != "" {
		fmt.Fprintf(std.err, "report written to %s\n", rf.out)
	}
	// A scenario that does not fit its server is the user's to fix: no
	// run of it judged the server.
	if errs := report.ScenarioErrors(); len(errs) > 0 {
		for _, e := range errs {
			printLines(std, e)
		}
		return exitUsage
	}
	for _, r := range report.Runs {
		if r.Error != "" {
			return exitFailed
		}
	}
	if failing(report, scenarios, failOn, rf.failOnSet) {
		return exitFindings
	}
	return exitOK
}

// failing applies --fail-on when given, else each scenario's own
// expect.fail_on to its runs.
func failing(r report.Report, scenarios []*scenario.Scenario, flag judge.Severity, flagSet bool) bool {
	if flagSet {
		return flag != "" && r.Failing(flag)
	}
	own := make(map[string]judge.Severity, len(scenarios))
	for _, sc := range scenarios {
		for _, c := range sc.Cells() {
			own[c.Name] = sc.Expect.FailOn
		}
	}
	for _, run := range r.Runs {
		limit := own[run.Scenario]
		if limit.Rank() == 0 {
			continue
		}
		for _, f := range run.Findings {
			if !f.Known() && f.Severity.Rank() >= limit.Rank() {
				return true
			}
		}
	}
	return false
}

// scenarioPaths expands directories into their *.yaml and *.yml files.
func scenarioPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		for _, pat := range []string{"*.yaml", "*.yml"} {
			m, _ := filepath.Glob(filepath.Join(a, pat))
			found = append(found, m...)
		}
		if len(found) == 0 {
			return nil, errors.New(a + ": no *.yaml scenario in this directory")
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// parseShard reads "i/n"; empty means the whole matrix.
func parseShard(s string) (i, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard: %q is not i/n with 1 ≤ i ≤ n (e.g. 2/3)", s)
	}
	return i, n, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
