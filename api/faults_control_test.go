package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
)

// TestFaultIdentity: disabling, enabling and a new ttl keep a fault's hit
// count and TTL clock (they used to restart both); re-submitting a fault
// does not extend it; extend and reset do, through real proxy traffic.
func TestFaultIdentity(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			clock := newFakeClock()
			f := setup(t, tr, clock, api.Options{MaxTTL: time.Hour})
			ctx := t.Context()
			up, err := f.client.AddUpstream(ctx, api.UpstreamRequest{Name: "carrier", Protocol: "http", Target: backend(t).URL})
			if err != nil {
				t.Fatal(err)
			}
			proxy := "http://" + up.Listen + "/x"
			added := clock.Now()
			once := api.FaultRequest{Name: "once", Upstream: "carrier", Limit: 1, TTL: "10m",
				Fault: api.FaultSpec{Kind: "http_error", Params: map[string]any{"status": 503}}}
			if _, err := f.client.AddFault(ctx, once); err != nil {
				t.Fatal(err)
			}
			if a, b := get(t, proxy), get(t, proxy); a != 503 || b != 200 {
				t.Fatalf("limit 1: %d then %d, want 503 then 200", a, b)
			}
			check := func(step string, flt api.Fault, hits int64, state string, expires time.Time) {
				t.Helper()
				if flt.Hits != hits || flt.State != state || flt.ExpiresAt == nil || !flt.ExpiresAt.Equal(expires) {
					t.Errorf("%s: hits %d state %s expires %v, want %d %s %v", step, flt.Hits, flt.State, flt.ExpiresAt, hits, state, expires)
				}
			}

			clock.Advance(5 * time.Minute)
			off, on := false, true
			if _, err := f.client.PatchFault(ctx, "once", api.FaultPatch{Enabled: &off}); err != nil {
				t.Fatal(err)
			}
			flt, err := f.client.PatchFault(ctx, "once", api.FaultPatch{Enabled: &on})
			if err != nil {
				t.Fatal(err)
			}
			check("disabled and enabled", flt, 1, api.StateExhausted, added.Add(10*time.Minute))
			if got := get(t, proxy); got != 200 {
				t.Errorf("toggling enabled re-armed the limit: %d", got)
			}

			flt, _, err = f.client.PutFault(ctx, once)
			if err != nil {
				t.Fatal(err)
			}
			check("re-submitted", flt, 1, api.StateExhausted, added.Add(10*time.Minute))
			longer := once
			longer.TTL = "30m"
			flt, _, err = f.client.PutFault(ctx, longer)
			if err != nil {
				t.Fatal(err)
			}
			check("a longer ttl counts from added_at", flt, 1, api.StateExhausted, added.Add(30*time.Minute))

			flt, err = f.client.ResetFault(ctx, "once")
			if err != nil {
				t.Fatal(err)
			}
			check("reset", flt, 0, api.StateActive, added.Add(30*time.Minute))
			if a, b := get(t, proxy), get(t, proxy); a != 503 || b != 200 {
				t.Errorf("after reset: %d then %d, want 503 then 200", a, b)
			}

			clock.Advance(30 * time.Minute) // expired, not swept
			flt, err = f.client.ExtendFault(ctx, "once", "10m")
			if err != nil {
				t.Fatal(err)
			}
			check("extended", flt, 1, api.StateExhausted, clock.Now().Add(10*time.Minute))
			if flt.AddedAt.Equal(clock.Now()) {
				t.Error("extend made a new fault")
			}
			flt, _, err = f.client.PutFault(ctx, longer)
			if err != nil {
				t.Fatal(err)
			}
			check("re-submitted after extend", flt, 1, api.StateExhausted, clock.Now().Add(10*time.Minute))

			for _, tc := range []struct {
				path, body  string
				status      int
				field, want string
			}{
				{"/v1/faults/once/extend", `{"ttl":"2h"}`, 400, "ttl", "ttl is over the maximum of 1h0m0s (serve --max-ttl)"},
				{"/v1/faults/once/extend", `{}`, 400, "ttl", "ttl is required"},
				{"/v1/faults/once/extend", `{"ttl":"-1m"}`, 400, "ttl", "positive"},
				{"/v1/faults/nope/extend", `{"ttl":"1m"}`, 404, "", "nope"},
				{"/v1/faults/nope/reset", ``, 404, "", "nope"},
				{"/v1/upstreams/other/faults/once/reset", ``, 404, "", "other"},
			} {
				ct := ""
				if tc.body != "" {
					ct = "application/json"
				}
				status, body := f.call(t, "POST", tc.path, ct, tc.body)
				if status != tc.status || !strings.Contains(body, tc.want) || (tc.field != "" && !strings.Contains(body, `"field": "`+tc.field+`"`)) {
					t.Errorf("POST %s %s: %d %s, want %d field %q %q", tc.path, tc.body, status, body, tc.status, tc.field, tc.want)
				}
			}
			if flt := mustFault(t, f, "once"); !flt.ExpiresAt.Equal(clock.Now().Add(10 * time.Minute)) {
				t.Errorf("a refused extend moved the expiry to %v", flt.ExpiresAt)
			}
		})
	}
}
