package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
)

// TestFaultExtendReset drives `mcpchaos fault extend` and `fault reset`
// against a served API, with traffic through the proxy.
func TestFaultExtendReset(t *testing.T) {
	t.Setenv("MCPCHAOS_TOKEN", "a-token-long-enough-for-the-test")
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer upstream.Close()
	s := startServe(t, "--api", "127.0.0.1:0", "--max-ttl", "30m")
	t.Setenv("MCPCHAOS_API", s.api)
	mustCLI := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := cli(t, args...)
		if code != want {
			t.Fatalf("mcpchaos %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out + errOut
	}
	mustCLI(0, "upstream", "add", "carrier", "--protocol", "http", "--target", upstream.URL)
	var ups api.UpstreamList
	decode(t, mustCLI(0, "upstream", "list", "--json"), &ups)
	proxy := "http://" + ups.Upstreams[0].Listen + "/"
	mustCLI(0, "fault", "add", "once", "--upstream", "carrier", "--kind", "http_error", "--param", "status=503", "--limit", "1", "--ttl", "5m")
	if a, b := status(t, proxy), status(t, proxy); a != 503 || b != 200 {
		t.Fatalf("limit 1: %d then %d", a, b)
	}
	mustCLI(0, "fault", "disable", "once")
	mustCLI(0, "fault", "enable", "once")
	if got := status(t, proxy); got != 200 {
		t.Errorf("enable re-armed the limit: %d", got)
	}
	if out := mustCLI(0, "fault", "reset", "once"); !strings.Contains(out, "active") {
		t.Errorf("fault reset printed %q", out)
	}
	if got := status(t, proxy); got != 503 {
		t.Errorf("after reset: %d, want 503", got)
	}
	var f api.Fault
	decode(t, mustCLI(0, "fault", "extend", "once", "--ttl", "20m", "--json"), &f)
	// Lower bound only: 20 minutes from the request, less the time it took.
	if f.ExpiresInSeconds == nil || *f.ExpiresInSeconds <= 5*60 || *f.ExpiresInSeconds > 20*60 || f.Hits != 1 {
		t.Errorf("after extend: expires in %v s, hits %d", f.ExpiresInSeconds, f.Hits)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fault", "extend", "once", "--ttl", "2h"}, "ttl is over the maximum of 30m0s (serve --max-ttl)"},
		{[]string{"fault", "extend", "once"}, "--ttl is required"},
		{[]string{"fault", "extend", "nope", "--ttl", "1m"}, "nope"},
		{[]string{"fault", "reset", "nope"}, "nope"},
	} {
		if out := mustCLI(2, tc.args...); !strings.Contains(out, tc.want) {
			t.Errorf("mcpchaos %s: %q, want %q", strings.Join(tc.args, " "), out, tc.want)
		}
	}
}

// TestServeConfigTTLOverMax: with no max_ttl and no --max-ttl, serve caps
// TTLs at 1h, and a config rule asking for more is refused at its line
// (it used to be cut silently).
func TestServeConfigTTLOverMax(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "chaos.yaml")
	src := "rules:\n  - name: long\n    fault: {kind: reset}\n    ttl: 2h\n"
	if err := os.WriteFile(cfg, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	// Were the rule accepted, serve would run until the context ends.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var errb bytes.Buffer
	code := run(ctx, []string{"serve", "--config", cfg, "--api", "off"}, stdio{in: strings.NewReader(""), out: io.Discard, err: &errb})
	errOut := errb.String()
	if code == exitOK || !strings.Contains(errOut, cfg+":4") || !strings.Contains(errOut, "rules[0].ttl") ||
		!strings.Contains(errOut, "over the maximum of 1h0m0s (serve --max-ttl)") {
		t.Errorf("serve with a ttl over the default maximum: exit %d\n%s", code, errOut)
	}
}
