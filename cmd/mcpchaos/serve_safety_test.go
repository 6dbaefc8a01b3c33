package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeShutdownDrains: stopping serve releases a reply held by a
// timeout rule, and the reply reaches the client whole before the
// proxies close.
func TestServeShutdownDrains(t *testing.T) {
	const size = 4 << 20
	reply := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	seen := make(chan struct{}, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case seen <- struct{}{}:
		default:
		}
		_, _ = w.Write(reply)
	}))
	defer up.Close()
	cfg := writeFile(t, "mcpchaos.yaml", `upstreams:
  - name: carrier
    protocol: http
    target: `+up.URL+`
rules:
  - name: hold replies
    upstream: carrier
    fault: {kind: timeout, direction: response}
`)
	srv := startServe(t, "--config", cfg, "--api", "off", "--shutdown-grace", "1m")
	type result struct {
		body []byte
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + srv.proxies["carrier"] + "/label")
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		got <- result{body, err}
	}()
	<-seen // the upstream answered; the proxy holds the reply
	if code := srv.stop(); code != exitOK {
		t.Errorf("serve exited %d, want 0:\n%s", code, srv.logs)
	}
	res := <-got
	if res.err != nil || !bytes.Equal(res.body, reply) {
		t.Fatalf("held reply after shutdown: %d of %d bytes, %v", len(res.body), len(reply), res.err)
	}
}

// TestServeSafetyDefaults: runs are off unless asked for; shutdown drains
// by default.
func TestServeSafetyDefaults(t *testing.T) {
	fs := newFlags("serve", "", "", stdio{out: io.Discard, err: io.Discard})
	var sf serveFlags
	sf.register(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	p, err := sf.plan(fs)
	if err != nil {
		t.Fatal(err)
	}
	if p.api.EnableRuns {
		t.Error("runs are enabled by default")
	}
	if p.grace <= 0 {
		t.Errorf("shutdown grace %v by default", p.grace)
	}
	t.Setenv("MCPCHAOS_RUNS", "true")
	fs = newFlags("serve", "", "", stdio{out: io.Discard, err: io.Discard})
	sf = serveFlags{}
	sf.register(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if err := applyEnv(fs, serveEnv()); err != nil {
		t.Fatal(err)
	}
	if p, err := sf.plan(fs); err != nil || !p.api.EnableRuns {
		t.Errorf("MCPCHAOS_RUNS=true: runs enabled %v, %v", p.api.EnableRuns, err)
	}
}
