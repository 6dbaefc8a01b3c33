package inject

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/rules"
)

// TestOpenCallOverlap: traffic that begins while one call is open is that
// call's (with its own request count); while two are open it is marked
// ambiguous (open_calls 2, both candidates, call 0), keeps only what both
// calls agree on, and a rule on a field they disagree on does not fire.
func TestOpenCallOverlap(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(httpUpstream))
	t.Cleanup(up.Close)
	reg := New(Options{Logger: zerolog.Nop()})
	t.Cleanup(func() { _ = reg.Close() })
	info, err := reg.AddUpstream(UpstreamSpec{Name: "carrier", Protocol: ProtocolHTTP, Target: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	sub := reg.Bus().Subscribe(256)
	defer sub.Close()
	putRule(t, reg, httpRule("first-try", `attempt == 1 && request == 1`, "http_error", map[string]any{"status": 503}))
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	get := func() int {
		status, _ := doGet(t, c, "http://"+info.Listen+"/orders")
		return status
	}

	closeA := reg.OpenCall(rules.CallContext{Tool: "create_order", Args: map[string]any{"sku": "A"}, Attempt: 1, Call: 7, Session: "s1"})
	a1 := get() // call 7's first request: the rule fires
	a2 := get() // its second: request 2, no match
	closeB := reg.OpenCall(rules.CallContext{Tool: "create_order", Args: map[string]any{"sku": "B"}, Attempt: 2, Call: 8, Session: "s1"})
	both := get() // ambiguous: attempts disagree, so attempt is 0 and nothing fires
	if n := reg.OpenCalls(); n != 2 {
		t.Errorf("OpenCalls() = %d, want 2", n)
	}
	closeA()
	closeA()    // idempotent
	b1 := get() // call 8 alone; it had no request of its own yet
	closeB()
	none := get()
	if got := fmt.Sprint([]int{a1, a2, both, b1, none}); got != "[503 200 200 200 200]" {
		t.Fatalf("statuses %s, want [503 200 200 200 200]", got)
	}

	var ex []Event
	for len(ex) < 5 {
		if e := <-sub.C(); e.Type == EventExchange {
			ex = append(ex, e)
		}
	}
	describe := func(e Event) string {
		return fmt.Sprintf("call=%d open=%d cand=%v tool=%q attempt=%d session=%q", e.Call, e.OpenCalls, e.Candidates, e.Tool, e.Attempt, e.Session)
	}
	want := []string{
		`call=7 open=1 cand=[] tool="create_order" attempt=1 session="s1"`,
		`call=7 open=1 cand=[] tool="create_order" attempt=1 session="s1"`,
		`call=0 open=2 cand=[7 8] tool="create_order" attempt=0 session="s1"`,
		`call=8 open=1 cand=[] tool="create_order" attempt=2 session="s1"`,
		`call=0 open=0 cand=[] tool="" attempt=0 session=""`,
	}
	for i, e := range ex {
		if got := describe(e); got != want[i] {
			t.Errorf("exchange %d: %s\n want %s", i+1, got, want[i])
		}
	}
}

// TestOverlapAgreement: the fields of an overlap are those every open call
// agrees on; arguments count only with the tool; candidates are capped.
func TestOverlapAgreement(t *testing.T) {
	call := func(n int, tool, sku string, attempt int, session string) *callState {
		return &callState{ctx: rules.CallContext{Tool: tool, Args: map[string]any{"sku": sku}, Attempt: attempt, Call: n, Session: session}, open: 1}
	}
	env := func(cs ...*callState) rules.Env {
		var e rules.Env
		overlap(cs).fill(&e)
		return e
	}
	same := env(call(1, "t", "A", 2, "s"), call(2, "t", "A", 2, "s"))
	if same.Tool != "t" || same.Args["sku"] != "A" || same.Attempt != 2 || same.Session != "s" || same.Call != 0 || same.Request != 0 {
		t.Errorf("agreeing calls: %+v", same)
	}
	diff := env(call(1, "t", "A", 1, "s"), call(2, "u", "A", 1, "r"))
	if diff.Tool != "" || diff.Args != nil || diff.Attempt != 1 || diff.Session != "" {
		t.Errorf("disagreeing calls: %+v", diff)
	}
	var many []*callState
	for i := range rules.MaxCandidates + 4 {
		many = append(many, call(i+1, "t", "A", 1, "s"))
	}
	e := env(many...)
	if e.OpenCalls != rules.MaxCandidates+4 || len(e.Candidates) != rules.MaxCandidates || !slices.IsSorted(e.Candidates) {
		t.Errorf("many calls: open %d, candidates %v", e.OpenCalls, e.Candidates)
	}
}

// TestUseFront: an mcp upstream needs a front; with one, the registry
// starts it on its own listener, tells it about rule changes, and closes
// it; a tamper rule is refused on a tcp upstream.
func TestUseFront(t *testing.T) {
	reg := New(Options{Logger: zerolog.Nop()})
	t.Cleanup(func() { _ = reg.Close() })
	spec := UpstreamSpec{Name: "mcp", Protocol: ProtocolMCP, Target: "http://127.0.0.1:9"}
	if _, err := reg.AddUpstream(spec); err == nil || !strings.Contains(err.Error(), "needs an MCP front") {
		t.Fatalf("without a front: %v", err)
	}
	f := &stubFront{}
	reg.UseFront(ProtocolMCP, func(ln net.Listener, env FrontEnv) (Front, error) {
		f.ln, f.env = ln, env
		return f, nil
	})
	info, err := reg.AddUpstream(spec)
	if err != nil {
		t.Fatal(err)
	}
	if info.Listen != f.ln.Addr().String() || f.env.Registry != reg || f.env.Spec.Name != "mcp" {
		t.Errorf("front got %v %+v; upstream %+v", f.ln.Addr(), f.env.Spec, info)
	}
	putRule(t, reg, rules.Rule{Name: "t", Upstream: "mcp", Fault: fault("tamper", "mode", "drop")})
	if f.changed == 0 {
		t.Error("the front was not told about the rule")
	}
	if _, err := reg.AddUpstream(UpstreamSpec{Name: "db", Protocol: ProtocolTCP, Target: "127.0.0.1:9"}); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.PutRule(rules.Rule{Name: "t2", Upstream: "db", Fault: fault("tamper")}); err == nil || !strings.Contains(err.Error(), "does not apply to tcp") {
		t.Errorf("tamper on tcp: %v", err)
	}
	if err := reg.RemoveUpstream("mcp"); err != nil {
		t.Fatal(err)
	}
	if !f.closed {
		t.Error("front not closed")
	}
}

// stubFront stands in for package front's: it records what it is told.
type stubFront struct {
	ln      net.Listener
	env     FrontEnv
	changed int
	closed  bool
}

func (f *stubFront) Changed(*rules.Set) { f.changed++ }
func (f *stubFront) Close() error {
	f.closed = true
	return f.ln.Close()
}
