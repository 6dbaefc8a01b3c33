package grade_test

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/front/grade"
	"github.com/mcpchaos/mcpchaos/inject"
)

// rig is a registry with an HTTP upstream "carrier" (a real server
// behind the fault layer's proxy, answering 201 to every POST), a
// recorder graded by a Live grader, and a subscription to the bus.
type rig struct {
	reg     *inject.Registry
	rec     *front.Recorder
	grader  *grade.Live
	sub     *inject.Subscription
	carrier string
	posts   atomic.Int64
}

func newRig(t *testing.T, opts grade.Options) *rig {
	t.Helper()
	r := &rig{reg: inject.New(inject.Options{Logger: zerolog.Nop()})}
	r.grader = grade.New(r.reg, opts)
	r.rec = front.NewRecorder(r.reg, front.RecorderOptions{Grader: r.grader})
	r.sub = r.reg.Bus().Subscribe(4096)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			r.posts.Add(1)
			w.WriteHeader(http.StatusCreated)
		}
	})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = r.reg.Close()
		_ = r.rec.Close()
		_ = r.grader.Close()
		r.sub.Close()
		_ = srv.Close()
		<-done
	})
	up, err := r.reg.AddUpstream(inject.UpstreamSpec{Name: "carrier", Protocol: inject.ProtocolHTTP, Target: "http://" + ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	r.carrier = "http://" + up.Listen
	return r
}

// call records one call of a session through the recorder's sink, making
// the upstream requests do while it is open, and ending it as ch.
func (r *rig) call(t *testing.T, sess string, seq int, tool string, args map[string]any, attempt int, ch front.Channel, text string, do func()) {
	t.Helper()
	c := front.Call{Session: sess, Seq: seq, Tool: tool, Args: args, Attempt: attempt, Start: time.Now()}
	r.rec.CallStarted(&c)
	if do != nil {
		do()
		// The proxy publishes an exchange once it has answered, so in no
		// set order with the call's end: a server's reply follows its
		// upstream's by its own work, the test's by nothing. Wait for it,
		// as a call's verdict reads the exchanges known when it ends.
		r.waitExchange(t, c.N)
	}
	c.Channel, c.Text, c.Elapsed = ch, text, time.Millisecond
	r.rec.CallEnded(c)
}

// waitExchange waits for an exchange event of call n.
func (r *rig) waitExchange(t *testing.T, n int) {
	t.Helper()
	r.waitEvent(t, fmt.Sprintf("an exchange event for call %d", n), func(e inject.Event) bool {
		return e.Type == inject.EventExchange && e.Call == n
	})
}

// waitEvent waits for the first event of the rig's subscription that
// match accepts, skipping the others.
func (r *rig) waitEvent(t *testing.T, what string, match func(inject.Event) bool) inject.Event {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case e := <-r.sub.C():
			if match(e) {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s", what)
		}
	}
}

func (r *rig) post(t *testing.T) {
	t.Helper()
	resp, err := http.Post(r.carrier+"/shipments", "application/json", strings.NewReader(`{"order_id":"A-1"}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
}

// waitSession waits for the session_close event of sess.
func (r *rig) waitSession(t *testing.T, sess string) inject.Event {
	t.Helper()
	return r.waitEvent(t, "session_close for "+sess, func(e inject.Event) bool {
		return e.Type == inject.EventSessionClose && e.Session == sess
	})
}

var shipmentTools = []front.Tool{{Name: "create_shipment", Params: []string{"order_id"}},
	{Name: "find_shipments", Params: []string{"order_id"}, ReadOnly: true}}

// TestLiveDuplicateAndLoop: a write whose upstream POST committed three
// times, the host each time getting no reply, is a retry loop (three
// calls after failures, the default threshold) and two duplicated writes;
// the session's event says so, with MC002 and MC003 among its findings.
func TestLiveDuplicateAndLoop(t *testing.T) {
	r := newRig(t, grade.Options{})
	s := front.Session{ID: "s1", Front: "wrap", Transport: "stdio", Start: time.Now(), Tools: shipmentTools}
	r.rec.SessionOpened(s)
	args := map[string]any{"order_id": "A-1"}
	for i := 1; i <= 3; i++ {
		r.call(t, "s1", i, "create_shipment", args, i, front.ChannelNoResponse, "", func() { r.post(t) })
	}
	s.Reason = "the client closed stdin"
	r.rec.SessionClosed(s)
	e := r.waitSession(t, "s1")
	if e.Verdict != grade.VerdictDuplicate || !strings.Contains(e.Detail, "2 duplicated write(s)") {
		t.Errorf("session event: verdict %q detail %q", e.Verdict, e.Detail)
	}
	if r.posts.Load() != 3 {
		t.Fatalf("carrier saw %d POSTs, want 3", r.posts.Load())
	}
	sessions := r.rec.Sessions()
	if len(sessions) != 1 || !slices.Contains(sessions[0].Findings, "MC002") || !slices.Contains(sessions[0].Findings, "MC003") {
		t.Errorf("session %+v: want findings MC002 and MC003", sessions)
	}
	calls := r.rec.Calls(front.CallQuery{Session: "s1"})
	var verdicts []string
	for _, c := range calls {
		verdicts = append(verdicts, c.Verdict)
	}
	// The first commits (and failed: no MC finding on a silent call),
	// the second duplicates it, the third is the loop's third call.
	if want := []string{"converged", "duplicate", "loop"}; !slices.Equal(verdicts, want) {
		t.Errorf("call verdicts %v, want %v", verdicts, want)
	}
	res := r.grader.Session(sessions[0], calls)
	if res.Duplicates != 2 || res.Loop == nil || !slices.Equal(res.Loop.Calls, []int{1, 2, 3}) || res.Calls[0].Committed != 1 {
		t.Errorf("result: duplicates %d loop %+v calls %+v", res.Duplicates, res.Loop, res.Calls)
	}
}

// TestLiveConverged: a write that committed once and a read are
// converged; a higher loop threshold keeps two failed repeats from being
// a loop, and a repeat after a success starts no streak.
func TestLiveConverged(t *testing.T) {
	r := newRig(t, grade.Options{LoopThreshold: 4})
	s := front.Session{ID: "s2", Front: "wrap", Transport: "stdio", Start: time.Now(), Tools: shipmentTools}
	r.rec.SessionOpened(s)
	args := map[string]any{"order_id": "A-2"}
	r.call(t, "s2", 1, "find_shipments", args, 1, front.ChannelNoResponse, "", nil)
	r.call(t, "s2", 2, "find_shipments", args, 2, front.ChannelNoResponse, "", nil)
	r.call(t, "s2", 3, "find_shipments", args, 3, front.ChannelSuccess, `{"shipments":[]}`, nil)
	r.call(t, "s2", 4, "create_shipment", args, 1, front.ChannelSuccess, `{"id":"S-1","status":"created"}`, func() { r.post(t) })
	r.rec.SessionClosed(s)
	if e := r.waitSession(t, "s2"); e.Verdict != grade.VerdictConverged {
		t.Errorf("session verdict %q (%s), want converged", e.Verdict, e.Detail)
	}
}
