package inject

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// released is a way of ending a fault's hold on the traffic.
type released struct {
	name string
	ttl  time.Duration // given to the rule
	end  func(t *testing.T, rig *httpRig, clock *fakeClock)
}

var releases = []released{
	{name: "halt", end: func(t *testing.T, rig *httpRig, _ *fakeClock) {
		rig.table.Clear()
		rig.p.changed(rig.table.Load())
	}},
	{name: "ttl", ttl: 300 * time.Millisecond}, // a real TTL: nothing sweeps
	{name: "sweep", ttl: time.Hour, end: func(t *testing.T, rig *httpRig, clock *fakeClock) {
		clock.advance(2 * time.Hour)
		if n := rig.table.Sweep(); n != 1 {
			t.Errorf("swept %d rules, want 1", n)
		}
	}},
}

// TestHTTPReleaseEverything: held, sleeping and paced exchanges go on as
// soon as their fault no longer applies, by halt (Clear), by a TTL
// expiring on its own or by a sweep; then a new request is served. The
// faults would take an hour or more; the test gives everything 5 s.
func TestHTTPReleaseEverything(t *testing.T) {
	const size = 1000
	faults := []struct {
		name   string
		kind   string
		params map[string]any
		upload bool // the fault acts on the request body
	}{
		{"latency request", "latency", map[string]any{"delay": "1h", "direction": "request"}, false},
		{"latency response", "latency", map[string]any{"delay": "1h"}, false},
		{"latency both", "latency", map[string]any{"delay": "30s", "direction": "both"}, false},
		{"timeout", "timeout", nil, false},
		{"bandwidth response", "bandwidth", map[string]any{"rate": 1}, false},
		{"bandwidth request", "bandwidth", map[string]any{"rate": 1, "direction": "request"}, true},
	}
	for _, f := range faults {
		for _, rel := range releases {
			t.Run(f.name+"/"+rel.name, func(t *testing.T) {
				clock := &fakeClock{now: time.Now()}
				var rc rules.Clock = rules.SystemClock{}
				if rel.name == "sweep" {
					rc = clock
				}
				rig := newHTTPRigClock(t, nil, rc)
				r := httpRule("slow", "", f.kind, f.params)
				r.TTL = rel.ttl
				rig.put(t, r)

				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				type result struct {
					resp *http.Response
					body string
					err  error
				}
				done := make(chan result, 1)
				c := rig.client(t, false)
				go func() {
					u, body := rig.url+"/doc?size="+strconv.Itoa(size), ""
					if f.upload {
						u, body = rig.url+"/upload", strings.Repeat("u", size)
					}
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
					resp, err := c.Do(req)
					if err != nil {
						done <- result{err: err}
						return
					}
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					done <- result{resp, string(b), err}
				}()
				rig.waitEvent(t, EventInjection)
				if rel.end != nil {
					rel.end(t, rig, clock)
				}
				res := <-done
				if res.err != nil {
					t.Fatalf("not released: %v", res.err)
				}
				if f.upload {
					if res.resp.Header.Get("X-Body-Len") != strconv.Itoa(size) {
						t.Errorf("upstream read %s bytes, want %d", res.resp.Header.Get("X-Body-Len"), size)
					}
				} else if want, _ := sha(pattern(size)); res.resp.StatusCode != 200 || len(res.body) != size {
					t.Errorf("got %d, %d bytes", res.resp.StatusCode, len(res.body))
				} else if got, _ := sha(strings.NewReader(res.body)); got != want {
					t.Error("body differs")
				}
				if e := rig.waitEvent(t, EventExchange); e.Status != 200 || !e.Committed {
					t.Errorf("exchange %+v", e)
				}
				// The next request is served, with no fault left.
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rig.url+"/x", nil)
				resp, err := rig.client(t, false).Do(req)
				if err != nil {
					t.Fatalf("request after the release: %v", err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("request after the release: %d", resp.StatusCode)
				}
			})
		}
	}
}

// TestHTTPHeldClientLeaves: a client that gives up on a small request
// held by a fault ends the exchange then, not when the fault goes.
func TestHTTPHeldClientLeaves(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		params map[string]any
	}{
		{"timeout", nil},
		{"latency", map[string]any{"delay": "1h", "direction": "request"}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			rig := newHTTPRig(t, nil)
			rig.put(t, httpRule("hold", "", tc.kind, tc.params))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			c := rig.client(t, false)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, rig.url+"/x", strings.NewReader(`{"jsonrpc":"2.0"}`))
				resp, err := c.Do(req)
				if err == nil {
					resp.Body.Close()
				}
				done <- err
			}()
			rig.waitEvent(t, EventInjection)
			cancel()
			if err := <-done; err == nil {
				t.Fatal("answered while held")
			}
			// The exchange ends with the client; the rule is still there.
			if e := rig.waitEvent(t, EventExchange); e.Committed || e.Rule != "hold" {
				t.Errorf("exchange %+v", e)
			}
			if n := rig.hits.Load(); n != 0 {
				t.Errorf("upstream saw %d requests, want 0", n)
			}
		})
	}
}

// TestHTTPSleepingThenOtherRule: a rule put in front of one whose
// latency is delaying a request takes the request over.
func TestHTTPSleepingThenOtherRule(t *testing.T) {
	rig := newHTTPRig(t, nil)
	slow := httpRule("slow", "", "latency", map[string]any{"delay": "1h", "direction": "request"})
	rig.put(t, slow)
	done := make(chan int, 1)
	c := rig.client(t, false)
	go func() {
		resp, _, err := post(c, rig.url+"/x", "")
		if err != nil {
			done <- -1
			return
		}
		done <- resp.StatusCode
	}()
	rig.waitEvent(t, EventInjection)
	if err := rig.table.Replace([]rules.Rule{httpRule("teapot", "", "http_error", map[string]any{"status": 418}), slow}); err != nil {
		t.Fatal(err)
	}
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
