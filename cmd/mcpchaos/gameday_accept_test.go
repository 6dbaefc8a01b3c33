package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
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
	Converged   bool      `json:"converged"`
	Calls       []simCall `json:"calls"`
	SideEffects []struct {
		Intended  int `json:"intended"`
		Committed int `json:"committed"`
	} `json:"side_effects"`
	Findings []struct {
		ID string `json:"id"`
	} `json:"findings"`
}

type simCall struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// duplicates is the run's count of writes committed beyond those intended.
func (s simRun) duplicates() int {
	n := 0
	for _, e := range s.SideEffects {
		n += max(0, e.Committed-e.Intended)
	}
	return n
}

func (s simRun) findingIDs() []string {
	var ids []string
	for _, f := range s.Findings {
		ids = append(ids, f.ID)
	}
	return ids
}

// runJSON runs `mcpchaos run` as a user does, as a subprocess (the
// scenario's {{ mcpchaos }} is then this test binary), with the diligent
// persona on the raw host and seed 1, and returns its one run.
func runJSON(t *testing.T, env []string, args ...string) simRun {
	t.Helper()
	args = append([]string{"run", "--persona", "diligent", "--host", "raw", "--seed", "1", "--format", "json", "--fail-on", "never"}, args...)
	run := exec.Command(os.Args[0], args...)
	run.Env = append(append(os.Environ(), asMainEnv+"=1"), env...)
	var stderr bytes.Buffer
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("mcpchaos %s: %v; %s", strings.Join(args, " "), err, stderr.String())
	}
	var rep struct {
		Runs []simRun `json:"runs"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || len(rep.Runs) != 1 {
		t.Fatalf("run report (%v): %s", err, out)
	}
	return rep.Runs[0]
}

// gamedayRig is a serve's parts in this process (fault layer, recorder,
// grader, API with a token, the mcp front), and the demo carrier, a real
// HTTP server behind the fault layer, losing the reply of every shipment
// POST (response_lost): the game day of
// examples/demo/careless-response_lost.yaml.
type gamedayRig struct {
	reg     *inject.Registry
	grader  *grade.Live
	live    *front.Recorder
	api     string // the API's base URL
	carrier string // the carrier upstream's URL, for CARRIER_URL
	sub     *inject.Subscription
}

const gamedayToken = "gameday-accept-token-0123456789"

func startGameday(t *testing.T) *gamedayRig {
	t.Helper()
	reg := inject.New(inject.Options{Logger: zerolog.Nop()})
	grader := grade.New(reg, grade.Options{Internal: grade.UpstreamValues(reg)})
	live := front.NewRecorder(reg, front.RecorderOptions{Grader: grader})
	reg.UseFront(inject.ProtocolMCP, live.NewFront)
	srv := api.New(reg, api.Options{Token: gamedayToken, Live: live, LiveGrader: grader})
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
	g := &gamedayRig{reg: reg, grader: grader, live: live, api: "http://" + ln.Addr().String(), sub: reg.Bus().Subscribe(4096)}
	t.Cleanup(func() {
		g.sub.Close()
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
	g.carrier = "http://" + up.Listen
	if _, err := reg.PutRule(rules.Rule{Name: "response_lost", Upstream: "carrier", When: `method == "POST" && path == "/shipments"`,
		Fault: rules.FaultSpec{Kind: "response_lost", Params: map[string]any{"mode": "hang"}}}); err != nil {
		t.Fatal(err)
	}
	return g
}

// httpFront starts the careless demo server over Streamable HTTP as a
// process of its own and puts an mcp upstream ("shipping") in front of
// it; it returns the front's endpoint, where a host connects.
func (g *gamedayRig) httpFront(t *testing.T) string {
	t.Helper()
	srv := exec.Command(os.Args[0], "demo-server", "--variant", "careless", "--http", "127.0.0.1:0")
	srv.Env = append(os.Environ(), asMainEnv+"=1", "CARRIER_URL="+g.carrier)
	said := &firstLine{line: make(chan string, 1)}
	srv.Stderr = said
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Kill()
		_ = srv.Wait()
	})
	// The server says where it listens, first thing on stderr.
	var line string
	select {
	case line = <-said.line:
	case <-time.After(time.Minute):
		t.Fatalf("demo-server --http said nothing: %s", said)
	}
	m := regexp.MustCompile(`on http://(\S+)/mcp`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("demo-server --http said %q", line)
	}
	up, err := g.reg.AddUpstream(inject.UpstreamSpec{Name: "shipping", Protocol: inject.ProtocolMCP, Target: "http://" + m[1]})
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + up.Listen + "/mcp"
}

// firstLine keeps what is written to it and hands its first line over.
type firstLine struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	line chan string // buffered: one line
	sent bool
}

func (f *firstLine) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.Write(p)
	if i := bytes.IndexByte(f.buf.Bytes(), '\n'); i >= 0 && !f.sent {
		f.sent = true
		f.line <- string(f.buf.Bytes()[:i])
	}
	return len(p), nil
}

func (f *firstLine) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

// closedSession waits for the close of the first session whose ID starts
// with prefix and that made calls, and returns it as the recorder holds
// it, with the close event.
func (g *gamedayRig) closedSession(t *testing.T, prefix string, stderr fmt.Stringer) (front.Session, inject.Event) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case e := <-g.sub.C():
			if e.Type != inject.EventSessionClose || !strings.HasPrefix(e.Session, prefix) ||
				len(g.live.Calls(front.CallQuery{Session: e.Session})) == 0 {
				continue
			}
			for _, s := range g.live.Sessions() {
				if s.ID == e.Session {
					return s, e
				}
			}
			t.Fatalf("session %s closed on the bus, unknown to the recorder", e.Session)
		case <-timeout:
			t.Fatalf("no session %s* closed with calls; stderr %s", prefix, stderr)
		}
	}
}

// matchRun grades the live session and compares it with the run: the
// same number of calls, a loop when the run did not converge, the same
// duplicate count (from the upstream ledger) and findings; the session's
// close event carries the duplicate verdict.
func (g *gamedayRig) matchRun(t *testing.T, sim simRun, sess front.Session, closed inject.Event) {
	t.Helper()
	res := g.grader.Session(sess, g.live.Calls(front.CallQuery{Session: sess.ID}))
	var liveIDs []string
	for _, f := range res.Findings {
		liveIDs = append(liveIDs, f.ID)
	}
	t.Logf("session %s: %d calls, loop %v, %d duplicates, findings %v; the run: %d calls, converged %v, %d duplicates, findings %v",
		sess.ID, len(res.Calls), res.Loop != nil, res.Duplicates, liveIDs, len(sim.Calls), sim.Converged, sim.duplicates(), sim.findingIDs())
	if len(res.Calls) != len(sim.Calls) {
		t.Errorf("live saw %d calls, the run made %d", len(res.Calls), len(sim.Calls))
	}
	if (res.Loop != nil) != !sim.Converged {
		t.Errorf("loop: live %+v, run converged %v", res.Loop, sim.Converged)
	}
	if res.Duplicates != sim.duplicates() || sim.duplicates() == 0 {
		t.Errorf("duplicates: live %d, run %d (side effects %+v)", res.Duplicates, sim.duplicates(), sim.SideEffects)
	}
	if !slices.Equal(liveIDs, sim.findingIDs()) {
		t.Errorf("findings: live %v, run %v", liveIDs, sim.findingIDs())
	}
	if closed.Verdict != grade.VerdictDuplicate || !slices.Equal(sess.Findings, liveIDs) {
		t.Errorf("session event verdict %q (%s), session findings %v", closed.Verdict, closed.Detail, sess.Findings)
	}
}

// replay makes the run's calls, in order, as a careless host would.
func replay(ctx context.Context, cs *mcp.ClientSession, calls []simCall) {
	for _, c := range calls {
		// The careless server answers a lost reply with a JSON-RPC
		// error, which the go-sdk returns as an error: expected.
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
	}
}

// TestGamedayMatchesRun is the acceptance of live verdicts: the demo's
// careless server, its carrier losing the reply of every shipment POST
// (response_lost), watched by a serve's fault layer and recorder; the
// live session's loop, duplicate count and findings equal those
// `mcpchaos run` reports for the same scenario and seed (diligent, raw
// host). Four hosts drive it: a go-sdk client replaying the persona's
// calls through `wrap --report --hold` and through the HTTP front (a host
// is not a persona: does the same traffic get the same verdicts?), and
// the scripted persona itself, deciding on what it gets, through both
// (`mcpchaos run` of a scenario whose server is wrapped, or is the
// front's URL: how a user would do it).
//
// The run's budget ends its loop; the live grader's loop threshold (3)
// is below it, so both see a loop.
func TestGamedayMatchesRun(t *testing.T) {
	sim := runJSON(t, nil, "../../examples/demo/careless-response_lost.yaml")
	if len(sim.Calls) < 2 {
		t.Fatalf("the run made %d calls: no loop to compare", len(sim.Calls))
	}

	t.Run("wrap", func(t *testing.T) {
		g := startGameday(t)
		wrap := exec.Command(os.Args[0], "wrap", "--report", g.api, "--hold", "10s", "--session", "gameday",
			"--", os.Args[0], "demo-server", "--variant", "careless")
		wrap.Env = append(os.Environ(), asMainEnv+"=1", "MCPCHAOS_TOKEN="+gamedayToken, "CARRIER_URL="+g.carrier)
		var wrapErr bytes.Buffer
		wrap.Stderr = &wrapErr
		client := mcp.NewClient(&mcp.Implementation{Name: "gameday-host", Version: "1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: wrap}, nil)
		if err != nil {
			t.Fatalf("connect through wrap: %v; %s", err, wrapErr.String())
		}
		replay(ctx, cs, sim.Calls)
		_ = cs.Close()
		sess, closed := g.closedSession(t, "gameday", &wrapErr)
		g.matchRun(t, sim, sess, closed)
	})

	t.Run("http-front", func(t *testing.T) {
		g := startGameday(t)
		endpoint := g.httpFront(t)
		client := mcp.NewClient(&mcp.Implementation{Name: "gameday-host", Version: "1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatalf("connect through the HTTP front: %v", err)
		}
		replay(ctx, cs, sim.Calls)
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
		sess, closed := g.closedSession(t, "shipping/", new(bytes.Buffer))
		if sess.Front != "shipping" || sess.Transport != "http" {
			t.Errorf("session %s: front %q, transport %q", sess.ID, sess.Front, sess.Transport)
		}
		g.matchRun(t, sim, sess, closed)
	})

	// The persona, through the front, must also have made the calls it
	// made in the run: it got the same replies.
	samePersona := func(t *testing.T, got simRun) {
		t.Helper()
		if len(got.Calls) != len(sim.Calls) {
			t.Fatalf("the persona made %d calls on the game day, %d in the run", len(got.Calls), len(sim.Calls))
		}
		for i := range got.Calls {
			if got.Calls[i].Tool != sim.Calls[i].Tool {
				t.Errorf("call %d: %s on the game day, %s in the run", i+1, got.Calls[i].Tool, sim.Calls[i].Tool)
			}
		}
	}

	t.Run("persona-wrap", func(t *testing.T) {
		g := startGameday(t)
		got := runJSON(t, []string{"MCPCHAOS_TOKEN=" + gamedayToken},
			"--var", "REPORT="+g.api, "--var", "CARRIER="+g.carrier, "testdata/gameday/persona-wrap.yaml")
		samePersona(t, got)
		sess, closed := g.closedSession(t, "wrap-", new(bytes.Buffer))
		if sess.Front != front.WrapFront {
			t.Errorf("session %s: front %q", sess.ID, sess.Front)
		}
		g.matchRun(t, sim, sess, closed)
	})

	t.Run("persona-http-front", func(t *testing.T) {
		g := startGameday(t)
		endpoint := g.httpFront(t)
		got := runJSON(t, nil, "--var", "SERVER="+endpoint, "testdata/gameday/persona-http.yaml")
		samePersona(t, got)
		sess, closed := g.closedSession(t, "shipping/", new(bytes.Buffer))
		g.matchRun(t, sim, sess, closed)
	})
}
