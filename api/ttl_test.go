package api_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
)

// TestTTLExpiry drives a fault's TTL with an injected clock: the reply
// states the expiry, the fault acts until then, reads as expired after,
// stops acting, and is gone after the registry's sweep. A fault without a
// ttl gets the server's default.
func TestTTLExpiry(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			clock := newFakeClock()
			f := setup(t, tr, clock, api.Options{DefaultTTL: 10 * time.Minute, MaxTTL: time.Hour})
			ctx := t.Context()
			be := backend(t)
			up, err := f.client.AddUpstream(ctx, api.UpstreamRequest{Name: "carrier", Protocol: "http", Target: be.URL})
			if err != nil {
				t.Fatal(err)
			}
			start := clock.Now()
			flt, err := f.client.AddFault(ctx, api.FaultRequest{Name: "down", Upstream: "carrier", TTL: "30s",
				Fault: api.FaultSpec{Kind: "http_error", Params: map[string]any{"status": 503}}})
			if err != nil {
				t.Fatal(err)
			}
			if flt.ExpiresAt == nil || !flt.ExpiresAt.Equal(start.Add(30*time.Second)) || flt.TTL != "30s" ||
				flt.ExpiresInSeconds == nil || *flt.ExpiresInSeconds != 30 || flt.State != api.StateActive {
				t.Fatalf("new fault: %+v", flt)
			}
			def, err := f.client.AddFault(ctx, api.FaultRequest{Name: "default", Upstream: "carrier", When: `path == "/never"`,
				Fault: api.FaultSpec{Kind: "reset"}})
			if err != nil {
				t.Fatal(err)
			}
			if def.TTL != "10m0s" || !def.ExpiresAt.Equal(start.Add(10*time.Minute)) {
				t.Errorf("fault without ttl: ttl %q expires %v, want the default 10m", def.TTL, def.ExpiresAt)
			}
			if got := get(t, "http://"+up.Listen+"/x"); got != 503 {
				t.Fatalf("through the proxy while the fault lives: %d, want 503", got)
			}
			if hits := mustFault(t, f, "down").Hits; hits != 1 {
				t.Errorf("hits %d, want 1", hits)
			}

			clock.Advance(31 * time.Second)
			exp := mustFault(t, f, "down")
			if exp.State != api.StateExpired || *exp.ExpiresInSeconds != 0 {
				t.Errorf("after the TTL: state %q, expires in %v", exp.State, *exp.ExpiresInSeconds)
			}
			if got := get(t, "http://"+up.Listen+"/x"); got != 200 {
				t.Fatalf("through the proxy after the TTL: %d, want 200", got)
			}
			if n := f.reg.Sweep(); n != 1 {
				t.Errorf("Sweep removed %d faults, want 1", n)
			}
			if _, err := f.client.Fault(ctx, "down"); !isStatus(err, 404) {
				t.Errorf("after the sweep: %v, want 404", err)
			}
			if st := mustFault(t, f, "default").State; st != api.StateActive {
				t.Errorf("the default-TTL fault is %s, want active", st)
			}
		})
	}
}

func mustFault(t *testing.T, f *fixture, name string) api.Fault {
	t.Helper()
	flt, err := f.client.Fault(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return flt
}

func isStatus(err error, status int) bool {
	e, ok := err.(*api.Error)
	return ok && e.Status == status
}

// get fetches url with a fresh connection and returns the status.
func get(t *testing.T, url string) int {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
