package inject

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPCloseWaitsForExchangeEvents: when close returns, every exchange
// in flight has published its event, so a run that closes its proxies
// and then reads the events counts them all. Both paths hold an exchange
// when close is called: a rule holding the reply (the net/http path,
// whose handlers the server's Close does not wait for; the proxy's count
// of the connection does), and the idle relay waiting for an upstream
// that does not answer.
func TestHTTPCloseWaitsForExchangeEvents(t *testing.T) {
	cases := []struct {
		name string
		rule bool // a timeout rule holds the reply; else the upstream holds it
	}{
		{"rule path", true},
		{"idle relay", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reached := make(chan struct{}, 1)
			rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body) // then the server watches the connection
				reached <- struct{}{}
				if !tc.rule {
					<-r.Context().Done() // answers nothing until the proxy goes
					return
				}
				w.WriteHeader(http.StatusCreated)
			}))
			if tc.rule {
				rig.put(t, httpRule("hold", "", "timeout", map[string]any{"direction": "response"}))
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, rig.url+"/shipments", strings.NewReader("{}"))
				if resp, err := rig.client(t, false).Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			<-reached // the exchange is in flight, held
			if err := rig.p.close(); err != nil {
				t.Fatal(err)
			}
			if !publishedExchange(rig.sub) {
				t.Error("close returned before the exchange in flight published its event")
			}
			<-done
		})
	}
}

// publishedExchange reports whether sub already holds an exchange event.
func publishedExchange(sub *Subscription) bool {
	for {
		select {
		case e := <-sub.C():
			if e.Type == EventExchange {
				return true
			}
		default:
			return false
		}
	}
}
