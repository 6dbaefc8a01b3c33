package api_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/api"
)

// errorOf decodes an error response.
func errorOf(t *testing.T, body string) api.Error {
	t.Helper()
	var eb struct{ Error api.Error }
	if err := json.Unmarshal([]byte(body), &eb); err != nil {
		t.Fatalf("not an error body: %s: %v", body, err)
	}
	return eb.Error
}

// TestUpstreamAddressValidation: a malformed listen or target is a 400
// naming the field, before anything binds or dials; an address in use
// is a 409 that names it.
func TestUpstreamAddressValidation(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Close() })
	tests := []struct {
		name, body string
		status     int
		field      string
		msg        string // a substring of the message
	}{
		{"listen bad ip", `{"name":"a","listen":"999.1.1.1:0","target":"127.0.0.1:9"}`, 400, "listen", "999.1.1.1"},
		{"listen bad port", `{"name":"a","listen":"127.0.0.1:99999","target":"127.0.0.1:9"}`, 400, "listen", "port"},
		{"listen in use", `{"name":"a","listen":"` + busy.Addr().String() + `","target":"127.0.0.1:9"}`, 409, "listen", busy.Addr().String()},
		{"tcp target url", `{"name":"a","target":"http://127.0.0.1:9"}`, 400, "target", "host:port"},
		{"tcp target userinfo", `{"name":"a","target":"localhost:9@10.0.0.1"}`, 400, "target", "port"},
		{"tcp target space", `{"name":"a","target":"127.0.0.1:9 "}`, 400, "target", "space"},
		{"http target https", `{"name":"a","protocol":"http","target":"https://127.0.0.1:9"}`, 400, "target", "scheme"},
		{"http target userinfo", `{"name":"a","protocol":"http","target":"http://u@127.0.0.1:9"}`, 400, "target", "user"},
	}
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			f := setup(t, tr, nil, api.Options{})
			for _, tt := range tests {
				status, body := f.call(t, "POST", "/v1/upstreams", "application/json", tt.body)
				if status != tt.status {
					t.Errorf("%s: %d %s, want %d", tt.name, status, body, tt.status)
					continue
				}
				e := errorOf(t, body)
				if e.Field != tt.field || !strings.Contains(e.Message, tt.msg) || strings.Contains(e.Message, "<nil>") {
					t.Errorf("%s: %+v, want field %s and %q in the message", tt.name, e, tt.field, tt.msg)
				}
			}
			if ups, err := f.client.Upstreams(t.Context()); err != nil || len(ups) != 0 {
				t.Errorf("upstreams after refusals: %v, %v", ups, err)
			}
		})
	}
}

// TestUpstreamListenAllWarns: an upstream whose proxy would listen on
// every interface is accepted with a warning in the answer. The upstream
// is disabled first, so that the test binds nothing off loopback.
func TestUpstreamListenAllWarns(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{})
	if status, body := f.call(t, "POST", "/v1/upstreams", "application/json", `{"name":"a","target":"127.0.0.1:9"}`); status != 201 ||
		strings.Contains(body, "warnings") {
		t.Fatalf("create on loopback: %d %s (want no warning)", status, body)
	}
	if status, body := f.call(t, "POST", "/v1/upstreams/a/disable", "", ""); status != 200 {
		t.Fatalf("disable: %d %s", status, body)
	}
	for _, listen := range []string{"0.0.0.0:0", "[::]:0", ":0"} {
		status, body := f.call(t, "PATCH", "/v1/upstreams/a", "application/json", `{"listen":"`+listen+`"}`)
		var u api.Upstream
		if err := json.Unmarshal([]byte(body), &u); err != nil || status != http.StatusOK {
			t.Fatalf("patch listen %s: %d %s", listen, status, body)
		}
		if len(u.Warnings) != 1 || !strings.Contains(u.Warnings[0], "every interface") {
			t.Errorf("listen %s: warnings %q", listen, u.Warnings)
		}
	}
	status, body := f.call(t, "PATCH", "/v1/upstreams/a", "application/json", `{"listen":"127.0.0.1:0"}`)
	if status != http.StatusOK || strings.Contains(body, "warnings") {
		t.Errorf("back to loopback: %d %s", status, body)
	}
}
