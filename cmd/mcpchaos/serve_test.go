package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeExampleConfig runs `mcpchaos serve` on the example config that
// the README shows, with its targets pointed at a test upstream, sends a
// request through the proxy to see a rule act, and stops it.
func TestServeExampleConfig(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer upstream.Close()

	example, err := os.ReadFile("../../config/testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), string(example)) {
		t.Error("README.md does not show config/testdata/example.yaml verbatim")
	}
	cfg := strings.ReplaceAll(string(example), "http://127.0.0.1:9000", upstream.URL)
	path := filepath.Join(t.TempDir(), "mcpchaos.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logR, logW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"serve", "--config", path, "--api", "127.0.0.1:0", "--log-format", "json"}, stdio{out: io.Discard, err: logW})
		logW.Close()
		done <- code
	}()

	// Read the log until the proxies are up; their addresses are logged.
	listen := map[string]string{}
	lines := bufio.NewScanner(logR)
	for lines.Scan() {
		var e map[string]any
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			t.Fatalf("log line is not JSON: %s", lines.Text())
		}
		if e["message"] == "proxy listening" {
			listen[e["upstream"].(string)] = e["listen"].(string)
		}
		if e["message"] == "serving; interrupt to stop" {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, logR) }()
	if listen["carrier"] == "" || listen["db"] == "" {
		t.Fatalf("proxies not logged: %v", listen)
	}

	// "slow lookups": every GET waits 800ms ± 200ms.
	client := &http.Client{Timeout: 10 * time.Second}
	start := time.Now()
	resp, err := client.Get("http://" + listen["carrier"] + "/shipments")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if took := time.Since(start); string(body) != "ok" || took < 600*time.Millisecond {
		t.Errorf("GET through the proxy: %q after %v, want ok after ≥600ms", body, took)
	}

	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("serve exited %d, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10s of SIGINT")
	}
}
