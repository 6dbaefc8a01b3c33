package agentsim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"go.uber.org/goleak"
)

// TestRunScenarioMismatch checks that a step naming a tool the server
// does not list stops the run before any call: no finding (the scenario
// is wrong, not the server), the error names the file, the line and the
// suggestion, and the matrix checks the scenario once.
func TestRunScenarioMismatch(t *testing.T) {
	defer goleak.VerifyNone(t)
	sc := helperScenario(t, "serve", `agent:
  personas: [diligent, stubborn]
  hosts: [swallow, raw]
steps:
  - tool: ok
    args: {id: A-1}
  - tool: fial
    args: {id: A-1}
`)
	rep, err := Run(context.Background(), []*scenario.Scenario{sc}, RunOptions{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 4 {
		t.Fatalf("%d runs", len(rep.Runs))
	}
	for i, r := range rep.Runs {
		if !r.ScenarioError || len(r.Calls) != 0 || len(r.Findings) != 0 ||
			!strings.HasPrefix(r.Error, "helper.yaml:11: steps[1].tool: ") || !strings.Contains(r.Error, `did you mean "fail"?`) {
			t.Errorf("run %d: scenario error %v, %d calls, findings %v, error %q", i, r.ScenarioError, len(r.Calls), r.Findings, r.Error)
		}
		// One at a time, the first run found it; the others did not
		// start a server to find it again.
		if started := !r.StartedAt.IsZero(); started != (i == 0) {
			t.Errorf("run %d started: %v", i, started)
		}
	}
	if errs := rep.ScenarioErrors(); len(errs) != 1 || errs[0] != rep.Runs[0].Error {
		t.Errorf("scenario errors %q", errs)
	}
}

func TestCheck(t *testing.T) {
	defer goleak.VerifyNone(t)
	good := helperScenario(t, "serve", "steps:\n  - tool: ok\n    args: {id: A-1}\nfollowups:\n  fail: {id: A-1}\n")
	bad := helperScenario(t, "serve", "steps:\n  - tool: ok\n    args: {id: 7}\n")
	dead := helperScenario(t, "exit-at-start", "steps: [{tool: ok}]\n")
	res, err := Check(context.Background(), []*scenario.Scenario{good, bad, dead}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || !slices.Contains(res[0].Tools, "ok") || !slices.Contains(res[0].Tools, "fail") {
		t.Errorf("good: %v, tools %v", res[0].Err, res[0].Tools)
	}
	if !errors.Is(res[1].Err, scenario.ErrMismatch) || !strings.Contains(res[1].Err.Error(), "helper.yaml:6: steps[0].args: ") {
		t.Errorf("bad: %v", res[1].Err)
	}
	var se *driver.StartError
	if !errors.As(res[2].Err, &se) || errors.Is(res[2].Err, scenario.ErrMismatch) {
		t.Errorf("dead: %v", res[2].Err)
	}
}
