package api_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
)

// TestLiveChangeDelay measures, through the real API on a loopback port,
// the time from the API's reply to a fault change to the first affected
// byte on a connection that was already open (and idle in the proxy's
// fast path). It asserts only that the very first byte sent after the
// reply is affected; the figures are logged.
func TestLiveChangeDelay(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{})
	ctx := t.Context()
	const rounds = 20

	t.Run("tcp", func(t *testing.T) {
		up, err := f.client.AddUpstream(ctx, api.UpstreamRequest{Name: "db", Protocol: "tcp", Target: echoServer(t)})
		if err != nil {
			t.Fatal(err)
		}
		var delays, rtts []time.Duration
		for range rounds {
			conn, err := net.Dial("tcp", up.Listen)
			if err != nil {
				t.Fatal(err)
			}
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			buf := make([]byte, 1)
			start := time.Now()
			if _, err := conn.Write([]byte("a")); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(conn, buf); err != nil {
				t.Fatal(err)
			}
			rtts = append(rtts, time.Since(start))
			if _, err := f.client.AddFault(ctx, api.FaultRequest{Name: "rst", Upstream: "db",
				Fault: api.FaultSpec{Kind: "reset", Params: map[string]any{"direction": "request"}}}); err != nil {
				t.Fatal(err)
			}
			replied := time.Now()
			_, _ = conn.Write([]byte("b"))
			n, err := conn.Read(buf)
			if err == nil {
				t.Fatalf("the first byte after the change came back (%q): the fault did not reach the open connection", buf[:n])
			}
			delays = append(delays, time.Since(replied))
			conn.Close()
			if err := f.client.RemoveFault(ctx, "rst"); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("TCP: API reply → reset seen by the client on an open connection: %s (echo round trip: %s)", stats(delays), stats(rtts))
	})

	t.Run("http", func(t *testing.T) {
		be := backend(t)
		up, err := f.client.AddUpstream(ctx, api.UpstreamRequest{Name: "carrier", Protocol: "http", Target: be.URL})
		if err != nil {
			t.Fatal(err)
		}
		tr := &http.Transport{MaxConnsPerHost: 1}
		defer tr.CloseIdleConnections()
		hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		var delays []time.Duration
		for range rounds {
			if code, _, _ := timedGet(t, hc, "http://"+up.Listen+"/x"); code != 200 {
				t.Fatalf("before the fault: %d", code)
			}
			if _, err := f.client.AddFault(ctx, api.FaultRequest{Name: "503", Upstream: "carrier",
				Fault: api.FaultSpec{Kind: "http_error", Params: map[string]any{"status": 503}}}); err != nil {
				t.Fatal(err)
			}
			replied := time.Now()
			code, first, reused := timedGet(t, hc, "http://"+up.Listen+"/x")
			if code != 503 || !reused {
				t.Fatalf("the first request after the change got %d (connection reused: %v), want 503 on the open connection", code, reused)
			}
			delays = append(delays, first.Sub(replied))
			if err := f.client.RemoveFault(ctx, "503"); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("HTTP: API reply → first byte of the faulted response on a kept-alive connection: %s", stats(delays))
	})
}

// timedGet sends a GET and returns its status, when the first response
// byte arrived, and whether it went over an already open connection.
func timedGet(t *testing.T, hc *http.Client, url string) (status int, first time.Time, reused bool) {
	t.Helper()
	trace := &httptrace.ClientTrace{
		GotConn:              func(i httptrace.GotConnInfo) { reused = i.Reused },
		GotFirstResponseByte: func() { first = time.Now() },
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, first, reused
}

// stats renders min / median / max.
func stats(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("min %v, median %v, max %v over %d changes", s[0], s[len(s)/2], s[len(s)-1], len(s))
}
