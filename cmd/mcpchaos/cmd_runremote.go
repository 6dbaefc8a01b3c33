package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/api"
)

// runRemote is `mcpchaos run --api URL`: each scenario file goes to the
// server's POST /v1/runs as written (so the server's built-in targets and
// binary are the ones used), the reports come back, and they are merged
// and written like a local run's, with the same exit codes. The scenarios
// were parsed here first, so a mistake is reported before anything is
// sent.
func runRemote(ctx context.Context, url string, paths []string, docs [][]byte, scenarios []*scenario.Scenario, personas, hosts []string, rf reportFlags, std stdio) int {
	failOn, write, ok := rf.outputs("mcpchaos run", std)
	if !ok {
		return exitUsage
	}
	cl, err := newAPIClient(url)
	if err != nil {
		return apiFail(std, "run", err)
	}
	var runs []report.RunReport
	for i, p := range paths {
		rep, code := runOneRemote(ctx, cl, p, docs[i], api.RunParams{Name: p, Seed: rf.seed, Personas: personas, Hosts: hosts}, std)
		if code != exitOK {
			return code
		}
		runs = append(runs, rep.Runs...)
	}
	return writeReport(report.New(rf.seed, runs), scenarios, failOn, write, rf, std)
}

// runOneRemote submits one scenario file and waits for its report. If ctx
// ends first (an interrupt), the remote run is cancelled too.
func runOneRemote(ctx context.Context, cl *api.Client, path string, data []byte, p api.RunParams, std stdio) (report.Report, int) {
	run, err := cl.StartRun(ctx, data, p)
	if err != nil {
		return report.Report{}, apiFail(std, "run", err)
	}
	id := run.ID
	fmt.Fprintf(std.err, "%s: %s running on the server\n", id, path)
	run, err = cl.WaitRun(ctx, id)
	if ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = cl.CancelRun(cctx, id)
		fmt.Fprintf(std.err, "mcpchaos run: interrupted; %s cancelled on the server\n", id)
		return report.Report{}, exitFailed
	}
	if err != nil {
		return report.Report{}, apiFail(std, "run", err)
	}
	if run.Status != api.RunDone {
		fmt.Fprintf(std.err, "mcpchaos run: %s %s: %s\n", run.ID, run.Status, run.Error)
		return report.Report{}, exitFailed
	}
	var rep report.Report
	if err := json.Unmarshal(run.Report, &rep); err != nil {
		fmt.Fprintf(std.err, "mcpchaos run: %s: reading the report: %v\n", run.ID, err)
		return report.Report{}, exitFailed
	}
	return rep, exitOK
}
