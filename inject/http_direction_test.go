package inject

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// timedUpstream records, for one exchange, when the request arrived, how
// long its body took to arrive, and how long writing the reply took.
type timedUpstream struct {
	arrived  chan time.Time
	bodyTook chan time.Duration
	wrote    chan time.Time // when the handler finished writing
	replyLen int64
}

func (u *timedUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	u.arrived <- start
	n, _ := io.Copy(io.Discard, r.Body)
	u.bodyTook <- time.Since(start)
	w.Header().Set("X-Body-Len", strconv.FormatInt(n, 10))
	w.Header().Set("Content-Length", strconv.FormatInt(u.replyLen, 10))
	_, _ = io.Copy(w, pattern(u.replyLen))
	http.NewResponseController(w).Flush()
	u.wrote <- time.Now()
}

// newTimedRig starts a timedUpstream whose connections have a small send
// buffer (so that a slow reader blocks its writes soon) and a proxy in
// front of it.
func newTimedRig(t *testing.T, replyLen int64) (*httpRig, *timedUpstream) {
	u := &timedUpstream{
		arrived: make(chan time.Time, 1), bodyTook: make(chan time.Duration, 1),
		wrote: make(chan time.Time, 1), replyLen: replyLen,
	}
	up := httptest.NewUnstartedServer(u)
	up.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetWriteBuffer(16 << 10)
		}
		return ctx
	}
	up.Start()
	t.Cleanup(up.Close)
	rig := &httpRig{up: up}
	rig.start(t, up.URL, rules.SystemClock{})
	return rig, u
}

// TestHTTPBandwidthDirection: request paces the request body (the upstream
// sees a slow writer), response paces the reply as it is read from the
// upstream (the upstream sees a slow reader: its writes block), both does
// both. Lower bounds only.
func TestHTTPBandwidthDirection(t *testing.T) {
	const (
		rate     = 1 << 20
		upload   = 256 << 10 // 250 ms at rate
		download = 2 << 20   // 2 s at rate; the buffers hold far less
	)
	for _, tc := range []struct {
		dir             string
		slowIn, slowOut bool
	}{
		{"request", true, false},
		{"response", false, true},
		{"both", true, true},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			rig, u := newTimedRig(t, download)
			rig.put(t, httpRule("thin", "", "bandwidth", map[string]any{"rate": rate, "direction": tc.dir}))
			resp, err := rig.client(t, false).Post(rig.url+"/x", "text/plain", strings.NewReader(strings.Repeat("u", upload)))
			if err != nil {
				t.Fatal(err)
			}
			got, n := sha(resp.Body)
			resp.Body.Close()
			if want, _ := sha(pattern(download)); n != download || got != want || resp.Header.Get("X-Body-Len") != strconv.Itoa(upload) {
				t.Errorf("client read %d bytes (sha match %v), upstream %s", n, got == want, resp.Header.Get("X-Body-Len"))
			}
			arrived, took, wrote := <-u.arrived, <-u.bodyTook, <-u.wrote
			if tc.slowIn && took < 200*time.Millisecond {
				t.Errorf("the upstream read the request body in %v, want at least 200ms", took)
			}
			if writing := wrote.Sub(arrived) - took; tc.slowOut && writing < 500*time.Millisecond {
				t.Errorf("the upstream wrote the reply in %v, want at least 500ms (a slow reader)", writing)
			}
		})
	}
}

// TestHTTPLatencyDirection: request delays the request before it is
// forwarded, response delays the reply's head, both does both.
func TestHTTPLatencyDirection(t *testing.T) {
	const delay = 150 * time.Millisecond
	for _, tc := range []struct {
		dir           string
		before, after bool
	}{
		{"request", true, false},
		{"response", false, true},
		{"both", true, true},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			rig, u := newTimedRig(t, 10)
			rig.put(t, httpRule("slow", "", "latency", map[string]any{"delay": delay.String(), "direction": tc.dir}))
			start := time.Now()
			resp, err := rig.client(t, false).Get(rig.url + "/x")
			if err != nil {
				t.Fatal(err)
			}
			head := time.Now()
			resp.Body.Close()
			arrived, _, wrote := <-u.arrived, <-u.bodyTook, <-u.wrote
			if d := arrived.Sub(start); tc.before && d < delay {
				t.Errorf("the request reached the upstream after %v, want at least %v", d, delay)
			}
			if d := head.Sub(wrote); tc.after && d < delay {
				t.Errorf("the reply's head reached the client %v after the upstream sent it, want at least %v", d, delay)
			}
		})
	}
}

// TestHTTPErrorStatusBounds: http_error answers with a final status only;
// an interim one (1xx) would leave the client waiting, and 101 switches
// protocols.
func TestHTTPErrorStatusBounds(t *testing.T) {
	for _, tc := range []struct {
		status int
		ok     bool
	}{{100, false}, {101, false}, {199, false}, {200, true}, {503, true}, {599, true}, {600, false}} {
		_, err := ParseFault(rules.FaultSpec{Kind: "http_error", Params: map[string]any{"status": tc.status}})
		var fe *rules.FieldError
		switch {
		case tc.ok && err != nil:
			t.Errorf("status %d: %v", tc.status, err)
		case !tc.ok && (!errors.As(err, &fe) || fe.Field != "fault.status"):
			t.Errorf("status %d: got %v, want an error on fault.status", tc.status, err)
		}
	}
}

// TestHTTPResponseLostHealedCloses: when a response_lost rule goes away
// while the client waits, the reply stays lost: the connection is closed,
// never answered.
func TestHTTPResponseLostHealedCloses(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rig.put(t, httpRule("lost", "", "response_lost", nil))
	done := make(chan error, 1)
	c := rig.client(t, false)
	go func() {
		resp, _, err := post(c, rig.url+"/x", "{}")
		if err == nil {
			err = errors.New("answered " + resp.Status)
			done <- err
			return
		}
		done <- nil
	}()
	rig.waitEvent(t, EventInjection)
	rig.remove(t, "lost")
	if err := <-done; err != nil {
		t.Error(err)
	}
	if e := rig.waitEvent(t, EventExchange); !e.Committed || e.Status != 200 {
		t.Errorf("exchange %+v", e)
	}
}
