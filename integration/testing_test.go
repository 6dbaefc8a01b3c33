package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
)

// failedTB is a test that has failed: StartT's cleanup must then log the
// container's output and the last report. It records what is logged and
// holds the cleanups for the test to run.
type failedTB struct {
	testing.TB
	logs, errs []string
	cleanups   []func()
}

func (f *failedTB) Helper()                      {}
func (f *failedTB) Failed() bool                 { return true }
func (f *failedTB) Logf(format string, a ...any) { f.logs = append(f.logs, fmt.Sprintf(format, a...)) }
func (f *failedTB) Errorf(format string, a ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, a...))
}
func (f *failedTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

// TestStartTDumpsOnFailure starts mcpchaos with StartT in a failed test:
// the cleanup logs serve's output and the last report, then removes the
// container.
func TestStartTDumpsOnFailure(t *testing.T) {
	e := need(t)
	t.Parallel()
	ftb := &failedTB{TB: t}
	c := StartT(ftb, e.pool, Options{Image: e.image, Labels: e.labels()})
	c.mu.Lock()
	c.last = &report.Report{Runs: []report.RunReport{{Scenario: "the last run", Persona: "diligent", Host: "swallow"}}}
	c.mu.Unlock()
	if len(ftb.cleanups) != 1 {
		t.Fatalf("%d cleanups registered, want 1", len(ftb.cleanups))
	}
	ftb.cleanups[0]()
	all := strings.Join(ftb.logs, "\n")
	// serve logs its API address on start (JSON lines).
	if !strings.Contains(all, "its output:") || !strings.Contains(all, "7777") {
		t.Errorf("the container's output was not logged:\n%s", all)
	}
	if !strings.Contains(all, "the last report:") || !strings.Contains(all, "the last run") {
		t.Errorf("the last report was not logged:\n%s", all)
	}
	if len(ftb.errs) > 0 {
		t.Errorf("the cleanup reported: %v", ftb.errs)
	}
	if err := c.checkRunning(t.Context()); err == nil {
		t.Error("the container still runs after the cleanup")
	}
}

// TestRunScenarioVars: a variable missing from Vars, or given and never
// used, is an error naming it, before anything is sent.
func TestRunScenarioVars(t *testing.T) {
	const doc = "server:\n  url: '{{ var \"SERVER\" }}'\nsteps: [{tool: a}]\n"
	c := &Chaos{} // no client: the error must come first
	for _, tc := range []struct {
		vars Vars
		want string
	}{
		{nil, `variable "SERVER" is not set`},
		{Vars{"SERVER": "http://s/mcp", "CARRIER": "x"}, `variable "CARRIER" is given but the scenario never uses it`},
	} {
		_, err := c.RunScenario(context.Background(), doc, tc.vars)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("vars %v: %v, want %q", tc.vars, err, tc.want)
		}
	}
}
