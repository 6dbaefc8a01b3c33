package inject

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// post sends body to path and returns the response with its body read
// (or the error of either).
func post(c *http.Client, u, body string) (*http.Response, []byte, error) {
	resp, err := c.Post(u, "text/plain", strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func httpIsReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

func TestHTTPFaultHTTPErrorBefore(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("down", "", "http_error", map[string]any{
		"status": 503, "body": "carrier down", "headers": map[string]any{"Retry-After": "7"},
	}))
	resp, body, err := post(rig.client(t, true), rig.url+"/shipments", "{}")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 503 || string(body) != "carrier down" || resp.Header.Get("Retry-After") != "7" {
		t.Errorf("got %d %q Retry-After %q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	if n := rig.hits.Load(); n != 0 {
		t.Errorf("upstream saw %d requests, want 0", n)
	}
	inj := rig.waitEvent(t, EventInjection)
	if inj.Rule != "down" || inj.Fault != "http_error" || inj.Method != "POST" || inj.Path != "/shipments" {
		t.Errorf("injection %+v", inj)
	}
	if e := rig.waitEvent(t, EventExchange); e.Status != 0 || e.Committed || e.Rule != "down" {
		t.Errorf("exchange %+v", e)
	}
}

func TestHTTPFaultHTTPErrorAfterUpstream(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("late", "", "http_error", map[string]any{
		"status": 504, "after_upstream": true, "headers": map[string]any{"Retry-After": "3"},
	}))
	resp, _, err := post(rig.client(t, true), rig.url+"/shipments", "{}")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 504 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("got %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if n := rig.hits.Load(); n != 1 {
		t.Errorf("upstream saw %d requests, want 1", n)
	}
	if e := rig.waitEvent(t, EventExchange); e.Status != 200 || !e.Committed || e.Fault != "http_error" {
		t.Errorf("exchange %+v", e)
	}
}

func TestHTTPFaultResponseLostHang(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("lost", "", "response_lost", nil))
	c := rig.client(t, false)
	c.Timeout = 300 * time.Millisecond
	start := time.Now()
	_, _, err := post(c, rig.url+"/shipments", "{}")
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("want the client's own timeout, got %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("gave up after %v", d)
	}
	if n := rig.hits.Load(); n != 1 {
		t.Errorf("upstream saw %d requests, want 1", n)
	}
	if e := rig.waitEvent(t, EventExchange); e.Status != 200 || !e.Committed || e.Rule != "lost" {
		t.Errorf("exchange %+v", e)
	}
}

func TestHTTPFaultResponseLostReset(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("lost", "", "response_lost", map[string]any{"mode": "reset"}))
	_, _, err := post(rig.client(t, false), rig.url+"/shipments", "{}")
	if !httpIsReset(err) {
		t.Fatalf("want a connection reset, got %v", err)
	}
	if n := rig.hits.Load(); n != 1 {
		t.Errorf("upstream saw %d requests, want 1", n)
	}
	if e := rig.waitEvent(t, EventExchange); !e.Committed {
		t.Errorf("exchange %+v", e)
	}
}

func TestHTTPFaultPartialWriteRequest(t *testing.T) {
	type read struct {
		n   int
		err error
	}
	got := make(chan read, 1)
	rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		got <- read{len(b), err}
	}))
	rig.put(t, httpRule("cut", "", "partial_write", map[string]any{"direction": "request", "bytes": 10, "then": "close"}))
	_, _, err := post(rig.client(t, false), rig.url+"/upload", strings.Repeat("x", 100))
	if err == nil {
		t.Error("client got a response to a cut request")
	}
	r := <-got
	if r.n != 10 || !errors.Is(r.err, io.ErrUnexpectedEOF) {
		t.Errorf("upstream read %d bytes, %v; want 10, unexpected EOF", r.n, r.err)
	}
	if e := rig.waitEvent(t, EventExchange); e.Committed || e.Rule != "cut" {
		t.Errorf("exchange %+v", e)
	}
}

func TestHTTPFaultPartialWriteResponse(t *testing.T) {
	for _, then := range []string{"close", "reset"} {
		t.Run(then, func(t *testing.T) {
			rig := newHTTPRig(t, nil)
			rig.put(t, httpRule("cut", "", "partial_write", map[string]any{"bytes": 5, "then": then}))
			resp, err := rig.client(t, false).Get(rig.url + "/doc?size=100")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.ContentLength != 100 {
				t.Errorf("Content-Length %d, want the full 100", resp.ContentLength)
			}
			b, err := io.ReadAll(resp.Body)
			switch {
			case then == "close" && (len(b) != 5 || !errors.Is(err, io.ErrUnexpectedEOF)):
				t.Errorf("read %d bytes, %v; want 5, unexpected EOF", len(b), err)
			case then == "reset" && (len(b) > 5 || !(httpIsReset(err) || errors.Is(err, io.ErrUnexpectedEOF))):
				t.Errorf("read %d bytes, %v; want at most 5, then a reset", len(b), err)
			}
			if n := rig.hits.Load(); n != 1 {
				t.Errorf("upstream saw %d requests, want 1", n)
			}
		})
	}
}

// TestHTTPFaultTimeoutHeals: a held request is delivered when its rule
// goes away, and not before.
func TestHTTPFaultTimeoutHeals(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("hang", "", "timeout", nil))
	type result struct {
		status int
		body   string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		resp, body, err := post(rig.client(t, false), rig.url+"/shipments", "abc")
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{resp.StatusCode, string(body), nil}
	}()
	rig.waitEvent(t, EventInjection)
	// An unrelated change wakes the hold, which goes back to holding.
	rig.put(t, httpRule("other", `path == "/other"`, "http_error", nil))
	select {
	case r := <-done:
		t.Fatalf("answered while held: %+v", r)
	case <-time.After(50 * time.Millisecond):
	}
	if n := rig.hits.Load(); n != 0 {
		t.Fatalf("upstream saw %d requests while held", n)
	}
	rig.remove(t, "hang")
	r := <-done
	if r.err != nil || r.status != 200 || r.body != "hello, world\n" {
		t.Fatalf("after heal: %+v", r)
	}
	if n := rig.hits.Load(); n != 1 {
		t.Errorf("upstream saw %d requests, want 1", n)
	}
	if e := rig.waitEvent(t, EventExchange); e.Status != 200 || !e.Committed || e.Rule != "hang" {
		t.Errorf("exchange %+v", e)
	}
}

func TestHTTPFaultTimeoutCloseAfter(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("hang", "", "timeout", map[string]any{"close_after": "100ms"}))
	start := time.Now()
	_, _, err := post(rig.client(t, false), rig.url+"/shipments", "abc")
	if err == nil || !errors.Is(err, io.EOF) {
		t.Errorf("want the connection closed without a response, got %v", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("closed after %v", d)
	}
	if n := rig.hits.Load(); n != 0 {
		t.Errorf("upstream saw %d requests, want 0", n)
	}
}

// TestHTTPFaultTimeoutResponse holds the reply of a request that has
// committed, then delivers it when the rule goes away.
func TestHTTPFaultTimeoutResponse(t *testing.T) {
	reached := make(chan struct{}, 1)
	rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- struct{}{}
		httpUpstream(w, r)
	}))
	rig.put(t, httpRule("hold", "", "timeout", map[string]any{"direction": "response"}))
	done := make(chan error, 1)
	go func() {
		resp, body, err := post(rig.client(t, false), rig.url+"/x", "")
		if err == nil && (resp.StatusCode != 200 || string(body) != "hello, world\n") {
			err = errors.New(resp.Status + " " + string(body))
		}
		done <- err
	}()
	<-reached
	// The reply is read whole before the hold starts: wait for the hold.
	rig.waitEvent(t, EventInjection)
	rig.remove(t, "hold")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestHTTPFaultHeldThenOtherRule: a rule put in front of a held one
// takes the held request over.
func TestHTTPFaultHeldThenOtherRule(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("hang", "", "unreachable", map[string]any{"mode": "blackhole"}))
	done := make(chan int, 1)
	go func() {
		resp, _, err := post(rig.client(t, false), rig.url+"/x", "")
		if err != nil {
			done <- -1
			return
		}
		done <- resp.StatusCode
	}()
	rig.waitEvent(t, EventInjection)
	if err := rig.table.Replace([]rules.Rule{
		httpRule("teapot", "", "http_error", map[string]any{"status": 418}),
		httpRule("hang", "", "unreachable", map[string]any{"mode": "blackhole"}),
	}); err != nil {
		t.Fatal(err)
	}
	rig.p.changed(rig.table.Load())
	if got := <-done; got != 418 {
		t.Errorf("status %d, want 418 from the new rule", got)
	}
	if e := rig.waitEvent(t, EventExchange); e.Rule != "teapot" {
		t.Errorf("exchange %+v", e)
	}
	if n := rig.hits.Load(); n != 0 {
		t.Errorf("upstream saw %d requests, want 0", n)
	}
}

func TestHTTPFaultLatency(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("slow", "", "latency", map[string]any{"delay": "60ms", "direction": "both"}))
	start := time.Now()
	resp, body, err := post(rig.client(t, true), rig.url+"/x", "")
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 120*time.Millisecond {
		t.Errorf("answered after %v, want at least 120ms", d)
	}
	if resp.StatusCode != 200 || string(body) != "hello, world\n" {
		t.Errorf("got %d %q", resp.StatusCode, body)
	}
}

func TestHTTPFaultUnreachableRefuse(t *testing.T) {
	rig := newHTTPRig(t, nil)
	c := rig.client(t, true)
	if status, _ := doGet(t, c, rig.url+"/x"); status != 200 {
		t.Fatalf("status %d", status)
	}
	rig.put(t, httpRule("dead", "", "unreachable", nil))
	addr := rig.p.addr().String()
	_, err := net.Dial("tcp", addr)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial while refusing: %v, want connection refused", err)
	}
	// The keep-alive connection was reset: the client's next request
	// redials and is refused too.
	if _, _, err := post(c, rig.url+"/x", ""); !errors.Is(err, syscall.ECONNREFUSED) && !httpIsReset(err) {
		t.Errorf("request while refusing: %v", err)
	}
	inj := rig.waitEvent(t, EventInjection)
	if inj.Rule != "dead" || inj.Fault != "unreachable" {
		t.Errorf("injection %+v", inj)
	}
	rig.remove(t, "dead")
	if status, _ := doGet(t, c, rig.url+"/x"); status != 200 {
		t.Fatalf("after heal: status %d", status)
	}
}

func TestHTTPFaultUnreachableBlackhole(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("void", "", "unreachable", map[string]any{"mode": "blackhole"}))
	c := rig.client(t, false)
	c.Timeout = 200 * time.Millisecond
	_, _, err := post(c, rig.url+"/x", "")
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("want the client's own timeout, got %v", err)
	}
	if n := rig.hits.Load(); n != 0 {
		t.Errorf("upstream saw %d requests, want 0", n)
	}
}

func TestHTTPFaultReset(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		hits int64
	}{{"request", 0}, {"response", 1}} {
		t.Run(tc.dir, func(t *testing.T) {
			rig := newHTTPRig(t, nil)
			rig.put(t, httpRule("rst", "", "reset", map[string]any{"direction": tc.dir}))
			_, _, err := post(rig.client(t, false), rig.url+"/x", "abc")
			if !httpIsReset(err) {
				t.Fatalf("want a connection reset, got %v", err)
			}
			if n := rig.hits.Load(); n != tc.hits {
				t.Errorf("upstream saw %d requests, want %d", n, tc.hits)
			}
		})
	}
}

func TestHTTPFaultBandwidth(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("thin", "", "bandwidth", map[string]any{"rate": 20000}))
	start := time.Now()
	resp, err := rig.client(t, true).Get(rig.url + "/doc?size=10000")
	if err != nil {
		t.Fatal(err)
	}
	got, n := sha(resp.Body)
	resp.Body.Close()
	want, _ := sha(pattern(10000))
	if n != 10000 || got != want {
		t.Errorf("body %d bytes, sha %s", n, got)
	}
	// 10,000 bytes at 20,000 B/s: half a second at least.
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Errorf("delivered in %v, want at least 500ms", d)
	}
}

// TestHTTPFaultTimeoutExpires: a held request is delivered when its rule
// expires, even if nothing sweeps the table.
func TestHTTPFaultTimeoutExpires(t *testing.T) {
	rig := newHTTPRig(t, nil)
	r := httpRule("brief", "", "timeout", nil)
	r.TTL = 100 * time.Millisecond
	rig.put(t, r)
	start := time.Now()
	resp, body, err := post(rig.client(t, false), rig.url+"/x", "")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || string(body) != "hello, world\n" {
		t.Errorf("got %d %q", resp.StatusCode, body)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("delivered after %v, before the rule expired", d)
	}
}

// TestHTTPCloseWhileRefusing: close returns while the listener is shut
// by a refuse fault (Accept is parked on the gate).
func TestHTTPCloseWhileRefusing(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("dead", "", "unreachable", nil))
	if !rig.p.gate.refusing() {
		t.Fatal("not refusing")
	}
	if err := rig.p.close(); err != nil {
		t.Fatal(err)
	}
}
