package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/demo"
	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/front/grade"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// simRun is what the acceptance compares of `mcpchaos run`'s JSON report.
type simRun struct {
	Converged bool `json:"converged"`
	Calls     []struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	} `json:"calls"`
	SideEffects []struct {
		Intended  int `json:"intended"`
		Committed int `json:"committed"`
	} `json:"side_effects"`
	Findings []struct {
		ID string `json:"id"`
	} `json:"findings"`
}

// TestGamedayMatchesRun is the acceptance of live verdicts: the demo's
// careless server behind `mcpchaos wrap --report --hold`, its carrier
// losing the reply of every shipment POST (response_lost), driven by a
// go-sdk client making the calls the scripted persona made in
// `mcpchaos run` of the same scenario and seed (diligent, raw host);
// the live session's loop, duplicate count and findings equal the run's.
//
// The client replays the persona's calls rather than deciding itself: a
// host is not a persona, and the question is whether the same traffic
// gets the same verdicts. The run's budget ends its loop; the live
// grader's loop threshold (3) is below it, so both see a loop.
func TestGamedayMatchesRun(t *testing.T) {
	// The simulator, as a user runs it.
	run := exec.Command(os.Args[0], "run", "--persona", "diligent", "--host", "raw", "--seed", "1", "--format", "json",
		"--fail-on", "never", "../../examples/demo/careless-response_lost.yaml")
	run.Env = append(os.Environ(), asMainEnv+"=1")
	var stderr bytes.Buffer
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("mcpchaos run: %v; %s", err, stderr.String())
	}
	var rep struct {
		Runs []simRun `json:"runs"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || len(rep.Runs) != 1 {
		t.Fatalf("run report (%v): %s", err, out)
	}
	sim := rep.Runs[0]
	simDup := 0
	for _, s := range sim.SideEffects {
		simDup += max(0, s.Committed-s.Intended)
	}
	var simIDs []string
	for _, f := range sim.Findings {
		simIDs = append(simIDs, f.ID)
	}

	// The game day: serve's parts in this process, the wrapped server a
	// subprocess, the carrier a real HTTP server behind the fault layer.
	reg := inject.New(inject.Options{Logger: zerolog.Nop()})
	grader := grade.New(reg, grade.Options{Internal: grade.UpstreamValues(reg)})
	live := front.NewRecorder(reg, front.RecorderOptions{Grader: grader})
	const token = "gameday-accept-token-0123456789"
	srv := api.New(reg, api.Options{Token: token, Live: live, LiveGrader: grader})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served, carried := make(chan error, 1), make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	go func() { carried <- demo.NewCarrier().Serve(ctx, cln) }()
	t.Cleanup(func() {
		cancel()
		<-served
		<-carried
		_ = reg.Close()
		_ = live.Close()
		_ = grader.Close()
	})
	up, err := reg.AddUpstream(inject.UpstreamSpec{Name: "carrier", Protocol: inject.ProtocolHTTP, Target: "http://" + cln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.PutRule(rules.Rule{Name: "response_lost", Upstream: "carrier", When: `method == "POST" && path == "/shipments"`,
		Fault: rules.FaultSpec{Kind: "response_lost", Params: map[string]any{"mode": "hang"}}}); err != nil {
		t.Fatal(err)
	}
	sub := reg.Bus().Subscribe(4096)
	defer sub.Close()

	wrap := exec.Command(os.Args[0], "wrap", "--report", "http://"+ln.Addr().String(), "--hold", "10s", "--session", "gameday",
		"--", os.Args[0], "demo-server", "--variant", "careless")
	wrap.Env = append(os.Environ(), asMainEnv+"=1", "MCPCHAOS_TOKEN="+token, "CARRIER_URL=http://"+up.Listen)
	var wrapErr bytes.Buffer
	wrap.Stderr = &wrapErr
	client := mcp.NewClient(&mcp.Implementation{Name: "gameday-host", Version: "1"}, nil)
	cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer ccancel()
	cs, err := client.Connect(cctx, &mcp.CommandTransport{Command: wrap}, nil)
	if err != nil {
		t.Fatalf("connect through wrap: %v; %s", err, wrapErr.String())
	}
	if _, err := cs.ListTools(cctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range sim.Calls {
		// The careless server answers a lost reply with a JSON-RPC
		// error, which the go-sdk returns as an error: expected.
		_, _ = cs.CallTool(cctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
	}
	_ = cs.Close()

	var closed inject.Event
	for timeout := time.After(30 * time.Second); closed.Type == ""; {
		select {
		case e := <-sub.C():
			if e.Type == inject.EventSessionClose && e.Session == "gameday" {
				closed = e
			}
		case <-timeout:
			t.Fatalf("no session_close; wrap stderr %s", wrapErr.String())
		}
	}
	var sess front.Session
	for _, s := range live.Sessions() {
		if s.ID == "gameday" {
			sess = s
		}
	}
	res := grader.Session(sess, live.Calls(front.CallQuery{Session: "gameday"}))
	var liveIDs []string
	for _, f := range res.Findings {
		liveIDs = append(liveIDs, f.ID)
	}
	if len(res.Calls) != len(sim.Calls) {
		t.Fatalf("live saw %d calls, the run made %d", len(res.Calls), len(sim.Calls))
	}
	if (res.Loop != nil) != !sim.Converged {
		t.Errorf("loop: live %+v, run converged %v", res.Loop, sim.Converged)
	}
	if res.Duplicates != simDup || simDup == 0 {
		t.Errorf("duplicates: live %d, run %d (side effects %+v)", res.Duplicates, simDup, sim.SideEffects)
	}
	if !slices.Equal(liveIDs, simIDs) {
		t.Errorf("findings: live %v, run %v", liveIDs, simIDs)
	}
	if closed.Verdict != grade.VerdictDuplicate || !slices.Equal(sess.Findings, liveIDs) {
		t.Errorf("session event verdict %q (%s), session findings %v", closed.Verdict, closed.Detail, sess.Findings)
	}
}
