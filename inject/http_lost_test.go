package inject

import (
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// lostGrace is how long the slow upstream takes to answer after the
// client gave up.
const lostGrace = 300 * time.Millisecond

// TestHTTPReplyFaultsWaitForTheAnswer: under a fault that forwards the
// whole request and then keeps the reply from the client (response_lost,
// timeout and partial_write on the response) the client may give up
// before the upstream has answered (the upstream is slow, or the machine
// loaded). The upstream still has the whole request and commits, so the
// exchange event must say so: the proxy waits for the upstream's answer
// before publishing, rather than abort the upstream request when the
// client leaves and report "not committed".
func TestHTTPReplyFaultsWaitForTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		params map[string]any
	}{
		{"response_lost", map[string]any{"mode": "hang"}},
		{"timeout", map[string]any{"direction": "response"}},
		{"partial_write", map[string]any{"direction": "response", "bytes": 0}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			arrived, aborted := make(chan struct{}), make(chan struct{})
			var answered atomic.Bool
			rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				close(arrived)
				// Answer once the proxy had time to notice the client's
				// departure (a grace, not a bound on anything measured),
				// unless the proxy abandons the request first.
				select {
				case <-r.Context().Done():
					close(aborted)
					return
				case <-time.After(lostGrace):
				}
				answered.Store(true)
				w.WriteHeader(http.StatusCreated)
			}))
			rig.put(t, httpRule("lost", "", tc.kind, tc.params))
			c, err := net.DialTimeout("tcp", rig.p.addr().String(), ioTimeout)
			if err != nil {
				t.Fatal(err)
			}
			_ = c.SetDeadline(time.Now().Add(ioTimeout))
			if _, err := io.WriteString(c, "POST /shipments HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
				t.Fatal(err)
			}
			<-arrived
			// The client gives up while the upstream is still working on it.
			_ = c.Close()
			e := rig.waitEvent(t, EventExchange)
			select {
			case <-aborted:
				t.Errorf("the proxy abandoned the upstream request when the client left")
			default:
			}
			if !answered.Load() || !e.Committed || e.Status != http.StatusCreated {
				t.Errorf("exchange event committed=%v status %d (upstream answered: %v); want committed with 201",
					e.Committed, e.Status, answered.Load())
			}
		})
	}
}
