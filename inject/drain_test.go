package inject

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestShutdownDrainsReleasedExchanges: a request held by a timeout rule
// is released by Shutdown, and its reply reaches the client whole before
// the proxies close. (Halt then Close, at once, cut it.)
func TestShutdownDrainsReleasedExchanges(t *testing.T) {
	const size = 4 << 20
	up := httptest.NewServer(http.HandlerFunc(httpUpstream))
	t.Cleanup(up.Close)
	reg := New(Options{Logger: zerolog.Nop()})
	t.Cleanup(func() { _ = reg.Close() })
	sub := reg.Bus().Subscribe(64)
	defer sub.Close()
	info, err := reg.AddUpstream(UpstreamSpec{Name: "carrier", Protocol: ProtocolHTTP, Target: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.PutRule(httpRule("hold", "", "timeout", map[string]any{"direction": "request"})); err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	type result struct {
		status   int
		sum, err string
		n        int64
	}
	done := make(chan result, 1)
	go func() {
		resp, err := (&http.Client{Transport: tr}).Get("http://" + info.Listen + "/shipments?size=" + strconv.Itoa(size))
		if err != nil {
			done <- result{err: err.Error()}
			return
		}
		defer resp.Body.Close()
		sum, n := sha(resp.Body)
		done <- result{status: resp.StatusCode, sum: sum, n: n}
	}()
	// The injection event says the request is held.
	for e := range sub.C() {
		if e.Type == EventInjection {
			break
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	removed, err := reg.Shutdown(ctx)
	if err != nil || removed != 1 {
		t.Fatalf("Shutdown = %d, %v; want 1 rule removed and a drained close", removed, err)
	}
	res := <-done
	want, _ := sha(pattern(size))
	if res.err != "" || res.status != http.StatusOK || res.n != size || res.sum != want {
		t.Fatalf("held request after Shutdown: status %d, %d bytes (want %d), err %q, body intact %v",
			res.status, res.n, size, res.err, res.sum == want)
	}
	// Closed for good.
	if _, err := reg.AddUpstream(UpstreamSpec{Name: "late", Target: "127.0.0.1:9"}); err == nil {
		t.Error("AddUpstream after Shutdown succeeded")
	}
}

// TestShutdownGraceEnds: a connection that does not finish is cut when
// the grace period ends, and Shutdown says the wait was cut short.
func TestShutdownGraceEnds(t *testing.T) {
	reg := New(Options{Logger: zerolog.Nop()})
	t.Cleanup(func() { _ = reg.Close() })
	up := startTCPUpstream(t, echo)
	info := addTCPUpstream(t, reg, "db", up.addr())
	c := dialTCP(t, info.Listen)
	mustEcho(t, c, "hello") // the proxy has the connection
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := reg.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown with an open TCP connection and no grace left = %v, want context.Canceled", err)
	}
	// Cut: the read ends (EOF or reset) rather than timing out.
	var ne net.Error
	if _, err := readRest(c); errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("connection still open after Shutdown: %v", err)
	}
}
