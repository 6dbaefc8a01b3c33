package inject

import (
	"bufio"
	"encoding/hex"
	"hash/fnv"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPExchangeFacts: every path an HTTP request can take states
// whether the request reached the upstream, what the upstream answered
// and what the client got, so that a request the upstream never answered
// cannot be counted as a committed write.
func TestHTTPExchangeFacts(t *testing.T) {
	body := "{\"id\":\"A-1\"}"
	h := fnv.New64a()
	_, _ = io.WriteString(h, body)
	sum := hex.EncodeToString(h.Sum(nil))
	cases := []struct {
		name     string
		rule     map[string]any // fault params, with "kind"; nil: no rule
		when     string
		method   string
		reached  bool
		upstream int
		client   int
		hash     string
	}{
		{"idle relay", nil, "", "PUT", true, 200, 200, sum},
		{"idle relay, POST not hashed", nil, "", "POST", true, 200, 200, ""},
		{"rule path, no match", map[string]any{"kind": "http_error", "status": 503}, `path == "/elsewhere"`, "PUT", true, 200, 200, sum},
		{"http_error before the upstream", map[string]any{"kind": "http_error", "status": 503}, "", "PUT", false, 0, 503, sum},
		{"http_error after the upstream", map[string]any{"kind": "http_error", "status": 504, "after_upstream": true}, "", "PATCH", true, 200, 504, sum},
		{"response_lost reset", map[string]any{"kind": "response_lost", "mode": "reset"}, "", "PUT", true, 200, 0, sum},
		{"request cut", map[string]any{"kind": "partial_write", "direction": "request", "bytes": 4, "then": "close"}, "", "PUT", false, 0, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rig := newHTTPRig(t, nil)
			if tc.rule != nil {
				params := map[string]any{}
				for k, v := range tc.rule {
					if k != "kind" {
						params[k] = v
					}
				}
				rig.put(t, httpRule("r", tc.when, tc.rule["kind"].(string), params))
			}
			req, err := http.NewRequest(tc.method, rig.url+"/shipments/A-1", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if resp, err := rig.client(t, false).Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
			e := rig.waitEvent(t, EventExchange)
			if e.Reached != tc.reached || e.Status != tc.upstream || e.ClientStatus != tc.client {
				t.Errorf("reached %v upstream %d client %d; want %v %d %d", e.Reached, e.Status, e.ClientStatus,
					tc.reached, tc.upstream, tc.client)
			}
			if e.Committed != (tc.upstream != 0) {
				t.Errorf("committed %v with upstream status %d", e.Committed, e.Status)
			}
			// A cut request's hash covers what was read of it: only its
			// presence is checked.
			if tc.hash != "" && e.BodyHash != tc.hash || tc.hash == "" && hashedMethod(tc.method) != (e.BodyHash != "") {
				t.Errorf("body hash %q, want %q", e.BodyHash, tc.hash)
			}
		})
	}
}

// TestHTTPRelayBadResponseKeepsStatus: the idle relay answers 502 for a
// response head it will not relay, but the upstream did answer, and the
// event says with what.
func TestHTTPRelayBadResponseKeepsStatus(t *testing.T) {
	rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		writeBadHead(brw)
	}))
	resp, err := rig.client(t, false).Get(rig.url + "/x")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("client got %d, want 502", resp.StatusCode)
	}
	e := rig.waitEvent(t, EventExchange)
	if !e.Reached || e.Status != 201 || e.ClientStatus != 502 {
		t.Errorf("reached %v upstream %d client %d; want true 201 502", e.Reached, e.Status, e.ClientStatus)
	}
}

// writeBadHead writes a response head with a Content-Length no HTTP
// client accepts.
func writeBadHead(w *bufio.ReadWriter) {
	_, _ = w.WriteString("HTTP/1.1 201 Created\r\nContent-Length: twelve\r\n\r\n")
	_ = w.Flush()
}
