package api_test

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

// waitInjection waits for the next injection event on sub.
func waitInjection(t *testing.T, sub *inject.Subscription) inject.Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e := <-sub.C():
			if e.Type == inject.EventInjection {
				return e
			}
		case <-timeout:
			t.Fatal("no injection event within 10s")
		}
	}
}

// TestHaltHealsHeldHTTPRequest: a request held by a timeout fault
// completes, answered by the upstream, once POST /v1/halt returns.
func TestHaltHealsHeldHTTPRequest(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{})
	ctx := t.Context()
	be := backend(t)
	up, err := f.client.AddUpstream(ctx, api.UpstreamRequest{Name: "carrier", Protocol: "http", Target: be.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.client.AddFault(ctx, api.FaultRequest{Name: "hang", Upstream: "carrier",
		Fault: api.FaultSpec{Kind: "timeout", Params: map[string]any{"direction": "request"}}}); err != nil {
		t.Fatal(err)
	}
	sub := f.reg.Bus().Subscribe(64)
	defer sub.Close()
	type result struct {
		status int
		body   string
		err    error
		at     time.Time
	}
	done := make(chan result, 1)
	go func() {
		c := &http.Client{Timeout: 20 * time.Second}
		resp, err := c.Get("http://" + up.Listen + "/shipments")
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- result{status: resp.StatusCode, body: string(b), err: err, at: time.Now()}
	}()
	waitInjection(t, sub)
	select {
	case r := <-done:
		t.Fatalf("the request completed while held: %+v", r)
	default:
	}
	res, err := f.client.Halt(ctx)
	replied := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if res.FaultsRemoved != 1 {
		t.Errorf("halt removed %d faults, want 1", res.FaultsRemoved)
	}
	r := <-done
	if r.err != nil || r.status != 200 || r.body != "ok" {
		t.Fatalf("held request after halt: %+v", r)
	}
	t.Logf("held HTTP request completed %v after the halt reply", r.at.Sub(replied))
}

// TestHaltHealsHeldTCPConnection: bytes held by a timeout fault on an
// open TCP connection flow once POST /v1/halt returns.
func TestHaltHealsHeldTCPConnection(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{})
	ctx := t.Context()
	up, err := f.client.AddUpstream(ctx, api.UpstreamRequest{Name: "db", Protocol: "tcp", Target: echoServer(t)})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", up.Listen)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sub := f.reg.Bus().Subscribe(64)
	defer sub.Close()
	if _, err := f.client.AddFault(ctx, api.FaultRequest{Name: "hang", Upstream: "db", Fault: api.FaultSpec{Kind: "timeout"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	waitInjection(t, sub)
	if _, err := f.client.Halt(ctx); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4)
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("held bytes after halt: %q, %v", buf, err)
	}
}

// TestDisableEnableUpstream: a disabled upstream refuses connections on
// its address, takes no new faults, and halt reopens it on the same
// address.
func TestDisableEnableUpstream(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{})
	ctx := t.Context()
	up, err := f.client.AddUpstream(ctx, api.UpstreamRequest{Name: "db", Protocol: "tcp", Target: echoServer(t)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.client.DisableUpstream(ctx, "db")
	if err != nil || d.Enabled || d.Listen != up.Listen {
		t.Fatalf("disable: %+v, %v", d, err)
	}
	if c, err := net.Dial("tcp", up.Listen); err == nil {
		c.Close()
		t.Fatal("a disabled upstream accepted a connection")
	}
	_, err = f.client.AddFault(ctx, api.FaultRequest{Name: "x", Upstream: "db", Fault: api.FaultSpec{Kind: "reset"}})
	if !isStatus(err, 409) {
		t.Errorf("fault on a disabled upstream: %v, want 409", err)
	}
	list, err := f.client.Upstreams(ctx)
	if err != nil || len(list) != 1 || list[0].Enabled {
		t.Errorf("list while disabled: %+v, %v", list, err)
	}
	res, err := f.client.Halt(ctx)
	if err != nil || len(res.UpstreamsEnabled) != 1 || res.UpstreamsEnabled[0] != "db" {
		t.Fatalf("halt: %+v, %v", res, err)
	}
	c, err := net.Dial("tcp", up.Listen)
	if err != nil {
		t.Fatalf("after halt the upstream is still closed: %v", err)
	}
	c.Close()
	if _, err := f.client.DisableUpstream(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if u, err := f.client.EnableUpstream(ctx, "db"); err != nil || !u.Enabled || u.Listen != up.Listen {
		t.Fatalf("enable: %+v, %v", u, err)
	}
}
