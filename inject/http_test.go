package inject

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/rules"
)

// httpRig is an HTTP proxy in front of a real loopback upstream, with the
// rule table and bus the registry would give it.
type httpRig struct {
	table *rules.Table
	bus   *Bus
	sub   *Subscription
	p     *httpProxy
	url   string // the proxy's base URL
	up    *httptest.Server
	hits  atomic.Int64 // requests the upstream received
	call  atomic.Pointer[callState]
}

// newHTTPRig starts an upstream serving h (httpUpstream when nil) and a
// proxy in front of it. Everything is closed when the test ends.
func newHTTPRig(tb testing.TB, h http.Handler) *httpRig {
	tb.Helper()
	return newHTTPRigClock(tb, h, rules.SystemClock{})
}

// newHTTPRigClock is newHTTPRig with the rule table reading clock.
func newHTTPRigClock(tb testing.TB, h http.Handler, clock rules.Clock) *httpRig {
	tb.Helper()
	if h == nil {
		h = http.HandlerFunc(httpUpstream)
	}
	rig := &httpRig{}
	rig.up = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rig.hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	tb.Cleanup(rig.up.Close)
	rig.start(tb, rig.up.URL, clock)
	return rig
}

// start starts the rig's proxy in front of target (a URL).
func (rig *httpRig) start(tb testing.TB, target string, clock rules.Clock) {
	tb.Helper()
	rig.table = rules.NewTable(rules.TableOptions{Seed: 7, Clock: clock, ParseFault: ParseFault})
	rig.bus = NewBus(BusOptions{})
	rig.sub = rig.bus.Subscribe(1 << 14)
	tb.Cleanup(rig.sub.Close)
	pe := &proxyEnv{
		spec:  UpstreamSpec{Name: "carrier", Protocol: ProtocolHTTP, Target: target},
		table: rig.table,
		bus:   rig.bus,
		log:   zerolog.Nop(),
		call:  rig.call.Load,
	}
	g, err := listenGate("127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p, err := newHTTPProxy(pe, g)
	if err != nil {
		tb.Fatal(err)
	}
	rig.p = p.(*httpProxy)
	rig.url = "http://" + p.addr().String()
	tb.Cleanup(func() {
		if err := p.close(); err != nil {
			tb.Errorf("close proxy: %v", err)
		}
	})
}

// put adds or replaces a rule and tells the proxy, as the registry does.
func (rig *httpRig) put(tb testing.TB, r rules.Rule) {
	tb.Helper()
	if _, err := rig.table.Put(r); err != nil {
		tb.Fatal(err)
	}
	rig.p.changed(rig.table.Load())
}

func (rig *httpRig) remove(tb testing.TB, name string) {
	tb.Helper()
	if err := rig.table.Remove(name); err != nil {
		tb.Fatal(err)
	}
	rig.p.changed(rig.table.Load())
}

// client returns a client of its own; keepAlive false gives every request
// a fresh connection, so that Go's retry of a request on a reused
// connection that broke cannot blur what a fault did.
func (rig *httpRig) client(tb testing.TB, keepAlive bool) *http.Client {
	tr := &http.Transport{DisableKeepAlives: !keepAlive, DisableCompression: true}
	tb.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// waitEvent returns the next event of type typ, skipping others.
func (rig *httpRig) waitEvent(tb testing.TB, typ EventType) Event {
	tb.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case e := <-rig.sub.C():
			if e.Type == typ {
				return e
			}
		case <-timeout.C:
			tb.Fatalf("no %s event within 10s", typ)
		}
	}
}

func httpRule(name, when, kind string, params map[string]any) rules.Rule {
	return rules.Rule{Name: name, Upstream: "carrier", When: when, Fault: rules.FaultSpec{Kind: kind, Params: params}}
}

// httpUpstream echoes what it received in headers and answers a body of
// ?size= pattern bytes, or a short greeting.
func httpUpstream(w http.ResponseWriter, r *http.Request) {
	sum := sha256.New()
	n, err := io.Copy(sum, r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h := w.Header()
	h.Set("X-Method", r.Method)
	h.Set("X-Query", r.URL.RawQuery)
	h.Set("X-Body-Len", strconv.FormatInt(n, 10))
	h.Set("X-Body-Sha256", hex.EncodeToString(sum.Sum(nil)))
	h.Set("X-Got-Foo", r.Header.Get("X-Foo"))
	h.Set("X-Got-Hop", r.Header.Get("X-Hop"))
	h.Set("X-Got-Xff", r.Header.Get("X-Forwarded-For"))
	h.Set("X-Got-Host", r.Host)
	if s := r.URL.Query().Get("size"); s != "" {
		size, _ := strconv.ParseInt(s, 10, 64)
		h.Set("Content-Length", s)
		_, _ = io.Copy(w, pattern(size))
		return
	}
	_, _ = io.WriteString(w, "hello, world\n")
}

// pattern is size deterministic pseudo-random bytes.
func pattern(size int64) io.Reader {
	return io.LimitReader(rand.NewChaCha8([32]byte{1}), size)
}

func sha(r io.Reader) (string, int64) {
	h := sha256.New()
	n, _ := io.Copy(h, r)
	return hex.EncodeToString(h.Sum(nil)), n
}

func TestHTTPPassThrough(t *testing.T) {
	rig := newHTTPRig(t, nil)
	c := rig.client(t, true)
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"} {
		t.Run(m, func(t *testing.T) {
			req, _ := http.NewRequest(m, rig.url+"/things?a=1&b=two", strings.NewReader("abc"))
			req.Header.Set("X-Foo", "bar")
			req.Header.Set("X-Hop", "secret")
			req.Header.Set("Connection", "X-Hop")
			req.Header.Set("X-Forwarded-For", "10.0.0.1")
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := map[string]string{
				"X-Method": m, "X-Query": "a=1&b=two", "X-Got-Foo": "bar", "X-Got-Hop": "",
				"X-Got-Xff": "10.0.0.1, 127.0.0.1", "X-Got-Host": rig.up.Listener.Addr().String(),
				"X-Body-Len": "3",
			}
			for k, v := range want {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if wantBody := "hello, world\n"; m != "HEAD" && string(body) != wantBody {
				t.Errorf("body %q, want %q", body, wantBody)
			}
		})
	}
}

// TestHTTPLargeBodies streams 8 MiB each way, idle and while a rule that
// does not match forces the rule path.
func TestHTTPLargeBodies(t *testing.T) {
	const size = 8 << 20
	wantSum, _ := sha(pattern(size))
	for _, active := range []bool{false, true} {
		t.Run(fmt.Sprintf("active=%v", active), func(t *testing.T) {
			rig := newHTTPRig(t, nil)
			if active {
				rig.put(t, httpRule("elsewhere", `path == "/nowhere"`, "http_error", nil))
			}
			c := rig.client(t, true)
			for _, chunked := range []bool{false, true} {
				var body io.Reader = pattern(size)
				if chunked {
					body = io.MultiReader(body) // hides the length: chunked encoding
				}
				resp, err := c.Post(rig.url+"/echo?size="+strconv.Itoa(size), "application/octet-stream", body)
				if err != nil {
					t.Fatal(err)
				}
				got, n := sha(resp.Body)
				resp.Body.Close()
				if n != size || got != wantSum {
					t.Errorf("chunked=%v: response %d bytes sha %s, want %d bytes sha %s", chunked, n, got, size, wantSum)
				}
				if h := resp.Header.Get("X-Body-Sha256"); h != wantSum {
					t.Errorf("chunked=%v: upstream got request sha %s, want %s", chunked, h, wantSum)
				}
			}
		})
	}
}

// TestHTTPStreamsWhenIdle shows the fast path does not buffer: the client
// has the headers and first bytes while the upstream is still writing.
func TestHTTPStreamsWhenIdle(t *testing.T) {
	release := make(chan struct{})
	rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "first ")
		http.NewResponseController(w).Flush()
		<-release
		_, _ = io.WriteString(w, "second")
	}))
	resp, err := rig.client(t, true).Get(rig.url + "/stream")
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 6)
	_, err = io.ReadFull(resp.Body, buf)
	close(release)
	if err != nil || string(buf) != "first " {
		t.Fatalf("read %q, %v before the upstream finished", buf, err)
	}
	rest, _ := io.ReadAll(resp.Body)
	if string(rest) != "second" {
		t.Fatalf("rest %q", rest)
	}
}

// reuseTrace records whether each request reused a connection.
func reuseTrace(req *http.Request, reused *bool) *http.Request {
	return req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { *reused = i.Reused },
	}))
}

func doGet(t *testing.T, c *http.Client, u string) (status int, reused bool) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	resp, err := c.Do(reuseTrace(req, &reused))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, reused
}

// TestHTTPRuleReachesOpenConnection: a rule added while a keep-alive
// connection is open applies to its next request; removing it heals the
// request after that, all on the same connection.
func TestHTTPRuleReachesOpenConnection(t *testing.T) {
	rig := newHTTPRig(t, nil)
	c := rig.client(t, true)
	want := []struct {
		status int
		before func()
	}{
		{200, nil},
		{503, func() { rig.put(t, httpRule("down", "", "http_error", map[string]any{"status": 503})) }},
		{200, func() { rig.remove(t, "down") }},
		{200, nil},
	}
	for i, w := range want {
		if w.before != nil {
			w.before()
		}
		status, reused := doGet(t, c, rig.url+"/x")
		if status != w.status {
			t.Errorf("request %d: status %d, want %d", i+1, status, w.status)
		}
		if i > 0 && !reused {
			t.Errorf("request %d did not reuse the connection", i+1)
		}
	}
	if n := rig.hits.Load(); n != 3 {
		t.Errorf("upstream saw %d requests, want 3", n)
	}
	if e := rig.waitEvent(t, EventConnOpen); e.Conn != 1 {
		t.Errorf("conn open %+v", e)
	}
	if rig.p.nconn.Load() != 1 {
		t.Errorf("%d connections, want 1", rig.p.nconn.Load())
	}
}

func TestHTTPRuleMatchesRoute(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("ship", `method == "POST" && path == "/shipments"`, "http_error", map[string]any{"status": 500}))
	c := rig.client(t, true)
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/shipments", 200},
		{"POST", "/other", 200},
		{"POST", "/shipments", 500},
		{"PUT", "/shipments", 200},
	} {
		req, _ := http.NewRequest(tc.method, rig.url+tc.path, strings.NewReader("{}"))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
	if n := rig.hits.Load(); n != 3 {
		t.Errorf("upstream saw %d requests, want 3", n)
	}
}

// TestHTTPRuleSeesRequestFields covers query, header and body_size.
func TestHTTPRuleSeesRequestFields(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("tenant", `header["X-Tenant"] == "acme" && query["dry"] == "1" && body_size == 4 && conn_request == 2`,
		"http_error", map[string]any{"status": 418}))
	c := rig.client(t, true)
	send := func(tenant, q, body string) int {
		req, _ := http.NewRequest("POST", rig.url+"/t?"+q, strings.NewReader(body))
		req.Header.Set("x-tenant", tenant)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body) // so the connection is reused
		resp.Body.Close()
		return resp.StatusCode
	}
	got := []int{
		send("acme", "dry=1", "abcd"), // conn_request 1
		send("acme", "dry=1", "abcd"), // 2: matches
		send("acme", "dry=1", "abcd"), // 3
	}
	if fmt.Sprint(got) != "[200 418 200]" {
		t.Errorf("statuses %v", got)
	}
}

// TestHTTPRuleRequestInCall: `request == 2` hits the second upstream
// request of the simulator's tool call only.
func TestHTTPRuleRequestInCall(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("second", `tool == "transfer" && request == 2`, "http_error", map[string]any{"status": 502}))
	c := rig.client(t, true)
	rig.call.Store(&callState{ctx: rules.CallContext{Tool: "transfer", Call: 4, Attempt: 1}, open: 1})
	var got []int
	for range 3 {
		status, _ := doGet(t, c, rig.url+"/step")
		got = append(got, status)
	}
	// A new call starts counting again.
	rig.call.Store(&callState{ctx: rules.CallContext{Tool: "transfer", Call: 5, Attempt: 2}, open: 1})
	for range 2 {
		status, _ := doGet(t, c, rig.url+"/step")
		got = append(got, status)
	}
	if fmt.Sprint(got) != "[200 502 200 200 502]" {
		t.Errorf("statuses %v, want [200 502 200 200 502]", got)
	}
	for i := range 5 {
		e := rig.waitEvent(t, EventExchange)
		wantCall := 4
		if i >= 3 {
			wantCall = 5
		}
		if e.Tool != "transfer" || e.Call != wantCall {
			t.Errorf("exchange %d: tool %q call %d, want transfer %d", i+1, e.Tool, e.Call, wantCall)
		}
		if faulted := e.Rule == "second"; faulted != (i == 1 || i == 4) {
			t.Errorf("exchange %d: rule %q", i+1, e.Rule)
		}
	}
}

// TestHTTPEvents: one exchange event per request with its numbers, the
// upstream's status and the rule that faulted it; connection events with
// byte counts.
func TestHTTPEvents(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("late", `seq == 2`, "http_error", map[string]any{"status": 503, "after_upstream": true}))
	c := rig.client(t, true)
	for range 3 {
		doGet(t, c, rig.url+"/ev?size=10")
	}
	open := rig.waitEvent(t, EventConnOpen)
	if open.Conn != 1 || open.Upstream != "carrier" || open.Protocol != ProtocolHTTP {
		t.Errorf("conn open %+v", open)
	}
	// The proxy numbers requests; the rule path and the fast path agree.
	for i := 1; i <= 3; i++ {
		e := rig.waitEvent(t, EventExchange)
		if e.Conn != 1 || e.Request != i || e.Method != "GET" || e.Path != "/ev" ||
			e.Status != 200 || !e.Committed || e.Upstream != "carrier" || e.Protocol != ProtocolHTTP {
			t.Errorf("exchange %d: %+v", i, e)
		}
		if faulted := e.Rule == "late" && e.Fault == "http_error"; faulted != (i == 2) {
			t.Errorf("exchange %d: rule %q fault %q", i, e.Rule, e.Fault)
		}
	}
	c.CloseIdleConnections()
	closed := rig.waitEvent(t, EventConnClose)
	if closed.Conn != 1 || closed.BytesUp == 0 || closed.BytesDown == 0 {
		t.Errorf("conn close %+v", closed)
	}
	select {
	case e := <-rig.sub.C():
		t.Errorf("unexpected event %+v", e)
	default:
	}
}

// TestHTTPUpstreamDown: a dead target gives 502 and an uncommitted
// exchange, idle and faulted alike.
func TestHTTPUpstreamDown(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.up.Close()
	c := rig.client(t, true)
	status, _ := doGet(t, c, rig.url+"/a")
	rig.put(t, httpRule("slow", "", "latency", map[string]any{"delay": "1ms"}))
	status2, _ := doGet(t, c, rig.url+"/b")
	if status != 502 || status2 != 502 {
		t.Errorf("statuses %d, %d, want 502", status, status2)
	}
	for range 2 {
		if e := rig.waitEvent(t, EventExchange); e.Status != 0 || e.Committed {
			t.Errorf("exchange %+v", e)
		}
	}
}

// TestHTTPCloseEndsHeld: closing the proxy ends a held exchange.
func TestHTTPCloseEndsHeld(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("hang", "", "timeout", nil))
	errc := make(chan error, 1)
	go func() {
		resp, err := rig.client(t, false).Get(rig.url + "/held")
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	rig.waitEvent(t, EventInjection)
	if err := rig.p.close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err == nil {
		t.Error("held request succeeded after close")
	}
}

// BenchmarkHTTPProxy compares the idle proxy with a plain
// httputil.ReverseProxy over keep-alive connections (13-byte body). Run
// with -count N: sub-benchmarks interleave (plain, mcpchaos, ...).
func BenchmarkHTTPProxy(b *testing.B) {
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello, world\n")
	})
	// Every variant gets the same kind of upstream (counting handler
	// included); the baseline uses one rig's upstream directly.
	rig := newHTTPRig(b, hello)
	active := newHTTPRig(b, hello)
	base := newHTTPRig(b, hello)
	target, _ := url.Parse(base.up.URL)
	plain := httputil.NewSingleHostReverseProxy(target)
	// Same pool size as the proxy, or the baseline would redial.
	plainTransport := &http.Transport{MaxIdleConnsPerHost: maxIdlePerHost, DisableCompression: true}
	b.Cleanup(plainTransport.CloseIdleConnections)
	plain.Transport = plainTransport
	plainSrv := httptest.NewServer(plain)
	b.Cleanup(plainSrv.Close)

	active.put(b, httpRule("elsewhere", `path == "/nowhere"`, "http_error", nil))
	drain := func(rig *httpRig) {
		// The benchmark publishes many events; a bounded subscriber
		// drops them, which is what a slow dashboard does.
		rig.sub.Close()
	}
	drain(rig)
	drain(active)

	newClient := func(b *testing.B, u string) func() {
		tr := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
		b.Cleanup(tr.CloseIdleConnections)
		c := &http.Client{Transport: tr}
		return func() {
			resp, err := c.Get(u + "/bench")
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	variants := []struct{ name, url string }{
		{"plain", plainSrv.URL},
		{"mcpchaos", rig.url},
		{"mcpchaos-rule-path", active.url},
	}
	for _, mode := range []string{"serial", "parallel"} {
		for _, v := range variants {
			b.Run(mode+"/"+v.name, func(b *testing.B) {
				get := newClient(b, v.url)
				b.ReportAllocs()
				if mode == "serial" {
					for b.Loop() {
						get()
					}
					return
				}
				b.SetParallelism(4)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						get()
					}
				})
			})
		}
	}
	// interleaved alternates one request through the plain proxy and one
	// through mcpchaos, so that both see the same machine load; the
	// ratio metric is mcpchaos's throughput relative to plain's.
	b.Run("interleaved", func(b *testing.B) {
		plainGet, chaosGet := newClient(b, plainSrv.URL), newClient(b, rig.url)
		var plainT, chaosT time.Duration
		for b.Loop() {
			t0 := time.Now()
			plainGet()
			t1 := time.Now()
			chaosGet()
			plainT += t1.Sub(t0)
			chaosT += time.Since(t1)
		}
		n := float64(b.N)
		b.ReportMetric(float64(plainT.Microseconds())/n, "plain-µs/req")
		b.ReportMetric(float64(chaosT.Microseconds())/n, "mcpchaos-µs/req")
		b.ReportMetric(float64(plainT)/float64(chaosT), "ratio")
	})
}

// TestHTTPThroughRegistry drives the proxy as the rest of mcpchaos does:
// through the registry, its call context and its refuse bookkeeping.
func TestHTTPThroughRegistry(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(httpUpstream))
	t.Cleanup(up.Close)
	reg := New(Options{Logger: zerolog.Nop(), Seed: 3})
	t.Cleanup(func() { _ = reg.Close() })
	info, err := reg.AddUpstream(UpstreamSpec{Name: "carrier", Protocol: ProtocolHTTP, Target: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + info.Listen
	if _, err := reg.PutRule(httpRule("second", `tool == "create_shipment" && request == 2`, "http_error", map[string]any{"status": 503})); err != nil {
		t.Fatal(err)
	}
	reg.SetCall(&rules.CallContext{Tool: "create_shipment", Call: 1, Attempt: 1})
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr}
	var got []int
	for range 3 {
		status, _ := doGet(t, c, base+"/shipments")
		got = append(got, status)
	}
	if fmt.Sprint(got) != "[200 503 200]" {
		t.Errorf("statuses %v", got)
	}
	if _, err := reg.PutRule(httpRule("dead", "", "unreachable", nil)); err != nil {
		t.Fatal(err)
	}
	if u, _ := reg.Upstream("carrier"); !u.Refusing {
		t.Error("not refusing under a refuse rule")
	}
	reg.Halt()
	tr.CloseIdleConnections()
	if status, _ := doGet(t, c, base+"/shipments"); status != 200 {
		t.Errorf("after halt: %d", status)
	}
}
