package inject

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// upstreamSeen is what a raw upstream made of one connection.
type upstreamSeen struct {
	head     bool  // it read a whole request head
	body     int64 // body bytes it read
	complete bool  // the request was whole: the upstream could act on it
}

// startCountingUpstream serves one request per connection, one connection
// at a time, and reports on seen what each connection carried. Only a
// complete request is answered.
func startCountingUpstream(t *testing.T) (addr string, seen <-chan upstreamSeen) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan upstreamSeen, 16)
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			var s upstreamSeen
			req, err := http.ReadRequest(bufio.NewReader(c))
			if err == nil {
				s.head = true
				s.body, err = io.Copy(io.Discard, req.Body)
				s.complete = err == nil
			}
			if s.complete {
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
			}
			c.Close()
			ch <- s
		}
	})
	return ln.Addr().String(), ch
}

// TestHTTPRequestCutNeverCommits: partial_write and reset in direction
// request never give the upstream a whole request, whatever bytes is and
// whether there is a body: when the body would get through whole, the
// head is cut instead. The upstream used to get (and act on) the whole
// request when bytes >= the body length, and always for a bodiless one.
func TestHTTPRequestCutNeverCommits(t *testing.T) {
	body := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name    string
		kind    string
		params  map[string]any
		method  string
		body    string
		chunked bool
		dials   bool
		head    bool  // the upstream gets the whole head
		got     int64 // body bytes it gets then
	}{
		{"partial 0", "partial_write", map[string]any{"bytes": 0}, "POST", body, false, true, true, 0},
		{"partial 10", "partial_write", map[string]any{"bytes": 10, "then": "close"}, "POST", body, false, true, true, 10},
		{"partial = body", "partial_write", map[string]any{"bytes": 100}, "POST", body, false, true, false, 0},
		{"partial > body", "partial_write", map[string]any{"bytes": 1000, "then": "close"}, "POST", body, false, true, false, 0},
		{"partial no body", "partial_write", map[string]any{"bytes": 0}, "GET", "", false, true, false, 0},
		{"partial no body, bytes 10", "partial_write", map[string]any{"bytes": 10}, "GET", "", false, true, false, 0},
		{"partial chunked 10", "partial_write", map[string]any{"bytes": 10}, "POST", body, true, true, true, 10},
		{"partial chunked = body", "partial_write", map[string]any{"bytes": 100}, "POST", body, true, true, true, 100},
		{"partial chunked > body", "partial_write", map[string]any{"bytes": 1000}, "POST", body, true, true, true, 100},
		{"reset 0", "reset", map[string]any{"bytes": 0}, "POST", body, false, false, false, 0},
		{"reset 10", "reset", map[string]any{"bytes": 10}, "POST", body, false, true, true, 10},
		{"reset = body", "reset", map[string]any{"bytes": 100}, "POST", body, false, true, false, 0},
		{"reset no body", "reset", map[string]any{"bytes": 5}, "GET", "", false, true, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, seen := startCountingUpstream(t)
			rig := &httpRig{}
			rig.start(t, "http://"+addr, rules.SystemClock{})
			tc.params["direction"] = "request"
			rig.put(t, httpRule("cut", "", tc.kind, tc.params))

			var rb io.Reader = strings.NewReader(tc.body)
			if tc.chunked {
				rb = struct{ io.Reader }{rb}
			}
			if tc.body == "" {
				rb = nil
			}
			req, err := http.NewRequest(tc.method, rig.url+"/x", rb)
			if err != nil {
				t.Fatal(err)
			}
			if resp, err := rig.client(t, false).Do(req); err == nil {
				resp.Body.Close()
				t.Fatalf("the client got %s for a cut request", resp.Status)
			}
			if e := rig.waitEvent(t, EventExchange); e.Committed || e.Status != 0 {
				t.Errorf("exchange %+v", e)
			}
			// A whole request after the fault is gone ends the record:
			// connections are served in the order they came.
			rig.remove(t, "cut")
			resp, err := rig.client(t, false).Get(rig.url + "/after")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var cut []upstreamSeen
			for s := range seen {
				if s.complete {
					break
				}
				cut = append(cut, s)
			}
			want := []upstreamSeen{}
			if tc.dials {
				want = append(want, upstreamSeen{head: tc.head, body: tc.got})
			}
			if len(cut) != len(want) || (len(cut) == 1 && cut[0] != want[0]) {
				t.Errorf("upstream saw %+v, want %+v (and no complete request)", cut, want)
			}
		})
	}
}
