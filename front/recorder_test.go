package front

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/internal/mcptest"
	"github.com/mcpchaos/mcpchaos/rules"
)

// serveHTTP serves h on a loopback port until the test ends.
func serveHTTP(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return "http://" + ln.Addr().String()
}

// liveRig is a registry with a recorder, an HTTP upstream "orders" the
// test server's upstream tool calls through its proxy, and an mcp
// upstream "live" in front of the test server.
type liveRig struct {
	reg    *inject.Registry
	rec    *Recorder
	sub    *inject.Subscription
	live   string // the front's URL
	orders string // the orders upstream's proxy URL
}

func newLiveRig(t *testing.T) *liveRig {
	t.Helper()
	rig := &liveRig{reg: inject.New(inject.Options{Logger: zerolog.Nop()})}
	rig.rec = NewRecorder(rig.reg, RecorderOptions{})
	rig.reg.UseFront(inject.ProtocolMCP, rig.rec.NewFront)
	rig.sub = rig.reg.Bus().Subscribe(4096)
	t.Cleanup(func() {
		_ = rig.reg.Close()
		_ = rig.rec.Close()
		rig.sub.Close()
	})
	orders := serveHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"orders":[]}`)) }))
	up, err := rig.reg.AddUpstream(inject.UpstreamSpec{Name: "orders", Protocol: inject.ProtocolHTTP, Target: orders})
	if err != nil {
		t.Fatal(err)
	}
	rig.orders = "http://" + up.Listen
	t.Setenv(mcptest.UpstreamEnv, rig.orders)
	srv := mcptest.NewServer(func(int) {})
	server := serveHTTP(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	live, err := rig.reg.AddUpstream(inject.UpstreamSpec{Name: "live", Protocol: inject.ProtocolMCP, Target: server})
	if err != nil {
		t.Fatal(err)
	}
	rig.live = "http://" + live.Listen + "/mcp"
	return rig
}

func (rig *liveRig) put(t *testing.T, r rules.Rule) {
	t.Helper()
	if _, err := rig.reg.PutRule(r); err != nil {
		t.Fatal(err)
	}
}

func (rig *liveRig) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: rig.live}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// events collects bus events until n of those keep accepts arrived.
func (rig *liveRig) events(t *testing.T, n int, keep func(inject.Event) bool) []inject.Event {
	t.Helper()
	var out []inject.Event
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for len(out) < n {
		select {
		case e := <-rig.sub.C():
			if keep(e) {
				out = append(out, e)
			}
		case <-deadline.C:
			t.Fatalf("got %d of %d events: %+v", len(out), n, out)
		}
	}
	return out
}

func ofType(types ...inject.EventType) func(inject.Event) bool {
	return func(e inject.Event) bool {
		for _, t := range types {
			if e.Type == t {
				return true
			}
		}
		return false
	}
}

// TestRecorderAttributesLiveCalls: while a live call is open, the
// upstream exchanges it causes carry its call, attempt and session, and a
// rule on attempt breaks only the first try; the recorder publishes the
// session and each call, and remembers them.
func TestRecorderAttributesLiveCalls(t *testing.T) {
	rig := newLiveRig(t)
	rig.put(t, rules.Rule{Name: "first-try", Upstream: "orders", When: `tool == "upstream" && attempt == 1`,
		Fault: rules.FaultSpec{Kind: "http_error", Params: map[string]any{"status": 503}}})
	cs := rig.connect(t)
	ctx := context.Background()
	var texts []string
	for range 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcptest.ToolUpstream})
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, res.Content[0].(*mcp.TextContent).Text)
	}
	if fmt.Sprint(texts) != "[upstream answered 503 upstream answered 200]" {
		t.Fatalf("replies %q", texts)
	}
	session := "live/" + cs.ID()
	got := rig.events(t, 6, ofType(inject.EventExchange, inject.EventInjection, inject.EventCall, inject.EventSessionOpen))
	var lines []string
	for _, e := range got {
		lines = append(lines, fmt.Sprintf("%s %s call=%d attempt=%d tool=%s session_ok=%v open=%d channel=%s rule=%s",
			e.Type, e.Upstream, e.Call, e.Attempt, e.Tool, e.Session == session, e.OpenCalls, e.Channel, e.Rule))
	}
	want := []string{
		"session_open live call=0 attempt=0 tool= session_ok=true open=0 channel= rule=",
		"injection orders call=1 attempt=1 tool=upstream session_ok=true open=1 channel= rule=first-try",
		"exchange orders call=1 attempt=1 tool=upstream session_ok=true open=1 channel= rule=first-try",
		"call live call=1 attempt=1 tool=upstream session_ok=true open=0 channel=tool_error rule=",
		"exchange orders call=2 attempt=2 tool=upstream session_ok=true open=1 channel= rule=",
		"call live call=2 attempt=2 tool=upstream session_ok=true open=0 channel=success rule=",
	}
	// A proxy publishes its exchange once it answered, so in no set order
	// with the call's own event: compare as sets.
	slices.Sort(lines)
	slices.Sort(want)
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	calls := rig.rec.Calls(CallQuery{Session: session})
	if len(calls) != 2 || calls[0].N != 1 || calls[1].N != 2 || calls[0].Overlap != 1 || calls[1].Text != "upstream answered 200" {
		t.Errorf("remembered %v", calls)
	}
	if s := rig.rec.Sessions(); len(s) != 1 || s[0].ID != session || s[0].Client != "host 1" {
		t.Errorf("sessions %+v", s)
	}
	_ = cs.Close()
	closed := rig.events(t, 1, ofType(inject.EventSessionClose))
	if closed[0].Session != session || !strings.Contains(closed[0].Detail, "deleted by the client; 2 calls") {
		t.Errorf("session close %+v", closed[0])
	}
}

// TestRecorderTamperEvent: a tamper rule on the mcp upstream is an
// injection event with the kind's outcome, and the call says so.
func TestRecorderTamperEvent(t *testing.T) {
	rig := newLiveRig(t)
	rig.put(t, rules.Rule{Name: "rpc", Upstream: "live", When: `tool == "fail"`, Fault: rules.FaultSpec{Kind: "tamper"}})
	cs := rig.connect(t)
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcptest.ToolFail}); err == nil {
		t.Fatal("the tool error reached the host as a tool error")
	}
	inj := rig.events(t, 1, ofType(inject.EventInjection))[0]
	if inj.Upstream != "live" || inj.Protocol != inject.ProtocolMCP || inj.Rule != "rpc" || inj.Fault != "tamper" ||
		inj.Outcome != inject.OutcomeCommittedReplyLost || inj.Call != 1 || inj.Tool != "fail" {
		t.Errorf("injection %+v", inj)
	}
	call := rig.events(t, 1, ofType(inject.EventCall))[0]
	if call.Channel != string(ChannelToolError) {
		t.Errorf("call %+v: the channel is what the server sent", call)
	}
}

// TestRecorderIngest: reports from a wrapper in another process are taken
// as the recorder's own: the call is numbered, attributed while open, and
// remembered; a bad report is refused whole, naming its field.
func TestRecorderIngest(t *testing.T) {
	rig := newLiveRig(t)
	start := time.Now()
	sess := Session{ID: "wrap-7-1", Front: WrapFront, Transport: "stdio", Start: start}
	call := Call{Session: sess.ID, Seq: 1, ID: "3", Tool: "create_order", Args: map[string]any{"sku": "A"}, Attempt: 1, Start: start}
	if err := rig.rec.Ingest([]Report{{Type: ReportSessionOpen, Session: &sess}, {Type: ReportCallStart, Call: &call}}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(rig.orders + "/orders") // what the wrapped server would do during its call
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	end := call
	end.Channel, end.Text, end.Elapsed = ChannelSuccess, "created", time.Millisecond
	bad := end
	bad.Channel = "maybe"
	if err := rig.rec.Ingest([]Report{{Type: ReportCallEnd, Call: &end}, {Type: ReportCallEnd, Call: &bad}}); err == nil ||
		!strings.Contains(err.Error(), "reports[1].call.channel") {
		t.Fatalf("a bad batch: %v", err)
	}
	if err := rig.rec.Ingest([]Report{{Type: ReportCallEnd, Call: &end}, {Type: ReportSessionClose, Session: &sess}}); err != nil {
		t.Fatal(err)
	}
	// The proxy publishes its exchange once it has answered: after the
	// client has its reply, so in no set order with the recorder's events.
	byType := map[inject.EventType]inject.Event{}
	for _, e := range rig.events(t, 4, ofType(inject.EventSessionOpen, inject.EventExchange, inject.EventCall, inject.EventSessionClose)) {
		byType[e.Type] = e
	}
	if ex := byType[inject.EventExchange]; ex.Call != 1 || ex.Session != sess.ID || ex.Tool != "create_order" || ex.Attempt != 1 {
		t.Errorf("exchange during the reported call: %+v", ex)
	}
	if c := byType[inject.EventCall]; c.Call != 1 || c.Session != sess.ID || c.Upstream != WrapFront || c.Channel != "success" {
		t.Errorf("call event %+v", c)
	}
	if c := byType[inject.EventSessionClose]; !strings.HasSuffix(c.Detail, "; 1 calls") {
		t.Errorf("session close %+v", c)
	}
	if c := rig.rec.Calls(CallQuery{}); len(c) != 1 || c[0].N != 1 || c[0].Text != "created" {
		t.Errorf("calls %v", c)
	}
}
