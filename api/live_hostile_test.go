package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
)

// TestLiveIngestHostile: POST /v1/live/reports refuses what is too big,
// too deep or unknown with a 4xx that says why, keeps no more sessions,
// open calls or metric labels than its bounds whatever the number of
// reports, and serve still answers /healthz after each.
func TestLiveIngestHostile(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{})
	post := func(t *testing.T, body io.Reader) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, f.base+"/v1/live/reports", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := f.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(b)
	}
	batches := func(t *testing.T, n, per int, one func(i int) string) {
		t.Helper()
		for i := 0; i < n; i += per {
			parts := make([]string, 0, per)
			for j := i; j < min(n, i+per); j++ {
				parts = append(parts, one(j))
			}
			if status, body := post(t, strings.NewReader(`{"reports":[`+strings.Join(parts, ",")+`]}`)); status != http.StatusOK {
				t.Fatalf("batch at %d: %d %s", i, status, body)
			}
		}
	}
	stats := func(t *testing.T) api.LiveStats {
		t.Helper()
		var l api.LiveSessionList
		_, body := f.call(t, http.MethodGet, "/v1/live/sessions", "", "")
		if err := json.Unmarshal([]byte(body), &l); err != nil {
			t.Fatal(err)
		}
		return l.Stats
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"body of 100 MB", func(t *testing.T) {
			body := io.MultiReader(strings.NewReader(`{"reports":[`), io.LimitReader(spaces{}, 100<<20), strings.NewReader(`]}`))
			if status, msg := post(t, body); status != http.StatusRequestEntityTooLarge || !strings.Contains(msg, "bytes") {
				t.Errorf("got %d %s, want 413 saying the limit", status, msg)
			}
		}},
		{"JSON nested 100,000 deep", func(t *testing.T) {
			body := `{"reports":[{"type":"call_start","call":{"session":"s","seq":1,"tool":"t","arguments":{"a":` +
				strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}}}]}`
			if status, msg := post(t, strings.NewReader(body)); status != http.StatusBadRequest || !strings.Contains(msg, "nested more than") {
				t.Errorf("got %d %s, want 400 saying how deep", status, msg)
			}
		}},
		{"unknown fields", func(t *testing.T) {
			body := `{"reports":[{"type":"session_open","session":{"id":"s","surprise":1}}]}`
			if status, msg := post(t, strings.NewReader(body)); status != http.StatusBadRequest || !strings.Contains(msg, `unknown field \"surprise\"`) {
				t.Errorf("got %d %s, want 400 naming the field", status, msg)
			}
		}},
		{"a tamper that is not one", func(t *testing.T) {
			body := `{"reports":[{"type":"call_end","call":{"session":"s","seq":1,"tool":"t","channel":"success","tamper":{"rule":"r","mode":"explode"}}}]}`
			if status, msg := post(t, strings.NewReader(body)); status != http.StatusBadRequest || !strings.Contains(msg, "call.tamper.mode") {
				t.Errorf("got %d %s, want 400 naming the field", status, msg)
			}
		}},
		{"100,000 reports in one body", func(t *testing.T) {
			body := `{"reports":[` + strings.TrimSuffix(strings.Repeat(`{},`, 100_000), ",") + `]}`
			if status, msg := post(t, strings.NewReader(body)); status != http.StatusBadRequest || !strings.Contains(msg, "reports[0].type") {
				t.Errorf("got %d %s, want 400 naming the first bad report", status, msg)
			}
		}},
		{"100,000 sessions", func(t *testing.T) {
			batches(t, 100_000, 5_000, func(i int) string {
				return fmt.Sprintf(`{"type":"session_open","session":{"id":"s-%d","front":"wrap"}}`, i)
			})
			if st := stats(t); st.Sessions > 1024 {
				t.Errorf("serve remembers %d sessions, bound 1024", st.Sessions)
			}
		}},
		{"100,000 calls started, never ended", func(t *testing.T) {
			batches(t, 100_000, 5_000, func(i int) string {
				return fmt.Sprintf(`{"type":"call_start","call":{"session":"c-%d","seq":1,"tool":"t"}}`, i)
			})
			if st := stats(t); st.Open > 1024 {
				t.Errorf("serve holds %d calls open, bound 1024", st.Open)
			}
		}},
		{"2,000 distinct fronts and tools in /metrics", func(t *testing.T) {
			const n, per = 2_000, 100
			for i := 0; i < n; i += per {
				batches(t, per, per, func(j int) string {
					k := i + j
					return fmt.Sprintf(`{"type":"session_open","session":{"id":"m-%d","front":"front-%d"}},`+
						`{"type":"call_end","call":{"session":"m-%d","seq":1,"tool":"tool-%d","channel":"success"}}`, k, k, k, k)
				})
				// The metrics count off the bus: wait for this batch.
				tick := time.NewTicker(5 * time.Millisecond)
				for deadline := time.Now().Add(10 * time.Second); scrape(t, f).value("mcpchaos_live_calls_total", nil) < float64(i+per); <-tick.C {
					if time.Now().After(deadline) {
						t.Fatalf("the metrics counted %v of %d calls", scrape(t, f).value("mcpchaos_live_calls_total", nil), i+per)
					}
				}
				tick.Stop()
			}
			fronts, tools := map[string]bool{}, map[string]bool{}
			for _, m := range scrape(t, f)["mcpchaos_live_calls_total"].GetMetric() {
				for _, l := range m.GetLabel() {
					switch l.GetName() {
					case "front":
						fronts[l.GetValue()] = true
					case "tool":
						tools[l.GetValue()] = true
					}
				}
			}
			if len(fronts) > 65 || len(tools) > 65 {
				t.Errorf("/metrics has %d front and %d tool labels; bound 64 each and other", len(fronts), len(tools))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t)
			if status, body := f.call(t, http.MethodGet, "/healthz", "", ""); status != http.StatusOK {
				t.Fatalf("/healthz: %d %s", status, body)
			}
		})
	}
}

// spaces is an endless stream of JSON whitespace.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
