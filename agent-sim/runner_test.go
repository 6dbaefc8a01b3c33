package agentsim

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"go.uber.org/goleak"
)

// helperScenario is a scenario driving the test binary's stdio server.
func helperScenario(t *testing.T, mode, body string) *scenario.Scenario {
	t.Helper()
	src := fmt.Sprintf("name: helper-%s\nserver:\n  command: [%q]\n  env: {%s: %s}\n%s",
		mode, os.Args[0], simtest.HelperEnv, mode, body)
	sc, err := scenario.Parse("helper.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestRunMatrixOrderAndSeeds(t *testing.T) {
	defer goleak.VerifyNone(t)
	sc := helperScenario(t, "serve", `agent:
  personas: [diligent, stubborn]
  hosts: [swallow, raw]
  budget: 3
steps:
  - tool: fail
    args: {id: A-1}
`)
	var mu sync.Mutex
	var progress []int
	rep, err := Run(context.Background(), []*scenario.Scenario{sc, sc}, RunOptions{Seed: 7, Concurrency: 3,
		Progress: func(done, total int) {
			mu.Lock()
			defer mu.Unlock()
			if total != 8 {
				t.Errorf("total %d", total)
			}
			progress = append(progress, done)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 8 || len(progress) != 8 || progress[7] != 8 {
		t.Fatalf("%d runs, progress %v", len(rep.Runs), progress)
	}
	for i, r := range rep.Runs {
		wantP, wantH := []string{"diligent", "stubborn"}[i/2%2], []string{"swallow", "raw"}[i%2]
		if r.Persona != wantP || r.Host != wantH || r.Seed != CellSeed(7, i) || r.Error != "" {
			t.Errorf("run %d: %s/%s seed %d error %q", i, r.Persona, r.Host, r.Seed, r.Error)
		}
		if len(r.Calls) != 1 || r.Calls[0].Channel != transcript.ChannelToolError || !r.Converged ||
			r.Calls[0].Decision.Action != transcript.ActStop || r.ProtocolVersion == "" {
			t.Errorf("run %d: %+v", i, r)
		}
	}
}

func TestRunServerFailsToStart(t *testing.T) {
	defer goleak.VerifyNone(t)
	sc := helperScenario(t, "exit-at-start", "agent: {hosts: [raw]}\nsteps: [{tool: ok}]\n")
	rep, err := Run(context.Background(), []*scenario.Scenario{sc}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Runs[0]
	if !strings.Contains(r.Error, "exit code 2") || r.Server == nil || r.Server.Code != 2 ||
		!strings.Contains(r.Server.StderrTail, "CARRIER_URL is not set") || rep.Summary.Failed != 1 {
		t.Errorf("%+v", r)
	}
}

func TestRunBudgetAndDeadline(t *testing.T) {
	defer goleak.VerifyNone(t)
	sc := helperScenario(t, "serve", "agent: {hosts: [swallow], budget: 3, call_timeout: 200ms}\nsteps: [{tool: hang, args: {id: x}}]\n")
	rep, err := Run(context.Background(), []*scenario.Scenario{sc}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Runs[0]
	if r.Converged || r.StopReason != "budget spent" || len(r.Calls) != 3 {
		t.Errorf("converged %v, %q, %d calls", r.Converged, r.StopReason, len(r.Calls))
	}
	// The tool hangs for ever: that Run returned at all shows the
	// deadline; each call must have waited its call_timeout, no less.
	for _, c := range r.Calls {
		if c.Channel != transcript.ChannelNoResponse || c.Attempt != c.N || c.ElapsedMS < 200 {
			t.Errorf("call %d: %s attempt %d after %d ms (call_timeout 200ms)", c.N, c.Channel, c.Attempt, c.ElapsedMS)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	defer goleak.VerifyNone(t)
	sc := helperScenario(t, "serve", "agent: {hosts: [swallow, raw], budget: 50, call_timeout: 5s}\nsteps: [{tool: hang, args: {id: x}}]\n")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	rep, err := Run(ctx, []*scenario.Scenario{sc}, RunOptions{Concurrency: 1})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v", err)
	}
	// Without cancellation the cells would run 2 hosts × 50 hanging
	// calls of 5 s: cancelled, no cell may have spent its budget.
	for _, r := range rep.Runs {
		if len(r.Calls) >= 50 || r.StopReason == "budget spent" {
			t.Errorf("%s ran on after cancellation: %d calls, %q", r.Host, len(r.Calls), r.StopReason)
		}
	}
}

func TestRunBadOverride(t *testing.T) {
	sc := helperScenario(t, "serve", "steps: [{tool: ok}]\n")
	for _, o := range []RunOptions{{Personas: []string{"lazy"}}, {Hosts: []string{"cursor"}}} {
		if _, err := Run(context.Background(), []*scenario.Scenario{sc}, o); !errors.Is(err, ErrUsage) {
			t.Errorf("%+v: got %v", o, err)
		}
	}
}

// TestRunBuiltinsAndSelf: {{ mcpchaos }} is RunOptions.Self, and a
// builtin:NAME target is started fresh for every cell, behind its proxy,
// and stopped after it.
func TestRunBuiltinsAndSelf(t *testing.T) {
	defer goleak.VerifyNone(t)
	var mu sync.Mutex
	started, stopped := 0, 0
	counter := func(ctx context.Context) (string, func() error, error) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `{"n": 0}`)
		}))
		mu.Lock()
		started++
		mu.Unlock()
		return srv.URL, func() error {
			srv.Close()
			mu.Lock()
			stopped++
			mu.Unlock()
			return nil
		}, nil
	}
	src := fmt.Sprintf(`server:
  command: ["{{ mcpchaos }}"]
  env: {%s: serve, SVC: '{{ upstream "svc" }}'}
upstreams:
  - {name: svc, protocol: http, target: "builtin:counter"}
agent: {hosts: [swallow, raw]}
steps: [{tool: fail, args: {id: x}}]
side_effects:
  - name: counted
    intended: 0
    probe: {http: '{{ target "svc" }}/n', expr: body.n}
`, simtest.HelperEnv)
	sc, err := scenario.Parse("builtin.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []*scenario.Scenario{sc}, RunOptions{Self: os.Args[0], Builtins: map[string]Builtin{"counter": counter}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if r.Error != "" || len(r.Calls) != 1 || len(r.SideEffects) != 1 || r.SideEffects[0].Error != "" {
			t.Errorf("%+v", r)
		}
	}
	if started != 2 || stopped != 2 {
		t.Errorf("started %d, stopped %d", started, stopped)
	}
	if _, err := Run(context.Background(), []*scenario.Scenario{sc}, RunOptions{Self: os.Args[0]}); !errors.Is(err, ErrUsage) {
		t.Errorf("without the builtin: %v", err)
	}
	rep, err = Run(context.Background(), []*scenario.Scenario{sc}, RunOptions{Builtins: map[string]Builtin{"counter": counter}, Hosts: []string{"raw"}})
	if err != nil || !strings.Contains(rep.Runs[0].Error, "only available when mcpchaos runs the scenario") {
		t.Errorf("without Self: %v %q", err, rep.Runs[0].Error)
	}
}

func TestShard(t *testing.T) {
	cells := make([]cell, 7)
	for i := range cells {
		cells[i] = cell{index: i, seed: CellSeed(9, i)}
	}
	seen := map[int]bool{}
	for i := 1; i <= 3; i++ {
		got, err := shard(cells, i, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range got {
			if seen[c.index] {
				t.Errorf("cell %d in two shards", c.index)
			}
			seen[c.index] = true
			if c.seed != CellSeed(9, c.index) {
				t.Errorf("cell %d lost its matrix seed", c.index)
			}
		}
	}
	if len(seen) != len(cells) {
		t.Errorf("shards cover %d of %d cells", len(seen), len(cells))
	}
	for _, bad := range [][2]int{{0, 3}, {4, 3}, {1, 0}} {
		if _, err := shard(cells, bad[0], bad[1]); !errors.Is(err, ErrUsage) {
			t.Errorf("shard %d/%d: err %v, want ErrUsage", bad[0], bad[1], err)
		}
	}
	if got, _ := shard(cells, 0, 0); len(got) != len(cells) {
		t.Error("no shard must keep the whole matrix")
	}
}
