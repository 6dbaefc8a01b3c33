package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

// healthcheck runs the command in process and returns its exit code and
// stderr.
func healthcheck(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"healthcheck"}, args...), stdio{out: &out, err: &errb})
	return code, errb.String()
}

func TestHealthcheckHealthy(t *testing.T) {
	reg := inject.New(inject.Options{})
	defer reg.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// A token is set: /healthz must not need it.
	go func() { done <- api.New(reg, api.Options{Token: "0123456789abcdef0123"}).Serve(ctx, ln) }()
	defer func() {
		cancel()
		<-done
	}()
	if code, stderr := healthcheck(t, "--api", "http://"+ln.Addr().String()); code != 0 {
		t.Errorf("exit %d, want 0; stderr: %s", code, stderr)
	}
}

func TestHealthcheckUnhealthy(t *testing.T) {
	// A port nothing listens on: refused at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if code, stderr := healthcheck(t, "--api", "http://"+addr); code != exitUnhealthy || !strings.Contains(stderr, "unhealthy") {
		t.Errorf("refused: exit %d, stderr %q; want %d", code, stderr, exitUnhealthy)
	}

	// A server that answers something else than the API's health.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "starting"})
	}))
	defer bad.Close()
	if code, _ := healthcheck(t, "--api", bad.URL); code != exitUnhealthy {
		t.Errorf("status starting: exit %d, want %d", code, exitUnhealthy)
	}
}

// TestHealthcheckDeadline checks that a server that never answers makes
// the check fail at its deadline rather than hang (Docker would kill it,
// and report a timeout instead of the reason).
func TestHealthcheckDeadline(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	start := time.Now()
	code, stderr := healthcheck(t, "--api", hang.URL, "--timeout", "300ms")
	if code != exitUnhealthy {
		t.Errorf("exit %d, want %d; stderr %s", code, exitUnhealthy, stderr)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v with --timeout 300ms", d)
	}
}

func TestHealthcheckDefaults(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"healthcheck", "--help"}, stdio{out: &out, err: &errb}); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	if !strings.Contains(out.String(), "(default 2s)") {
		t.Errorf("the deadline is not 2s by default:\n%s", out.String())
	}
	for _, tc := range []struct{ api, addr, want string }{
		{"", "", "http://127.0.0.1:7777"},
		{"http://chaos:9999", "0.0.0.0:7777", "http://chaos:9999"},
		{"", "0.0.0.0:8000", "http://127.0.0.1:8000"},
		{"", ":8001", "http://127.0.0.1:8001"},
		{"", "off", "http://127.0.0.1:7777"},
	} {
		t.Setenv("MCPCHAOS_API", tc.api)
		t.Setenv("MCPCHAOS_API_ADDR", tc.addr)
		if got := defaultHealthURL(); got != tc.want {
			t.Errorf("MCPCHAOS_API=%q MCPCHAOS_API_ADDR=%q: %q, want %q", tc.api, tc.addr, got, tc.want)
		}
	}
	if code, _ := healthcheck(t, "extra"); code != exitUsage {
		t.Errorf("an argument: exit %d, want %d", code, exitUsage)
	}
}

func TestDemoCarrier(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logR, logW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"demo-carrier", "--listen", "127.0.0.1:0"}, stdio{out: io.Discard, err: logW})
		logW.Close()
		done <- code
	}()
	line, err := bufio.NewReader(logR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the log: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, logR) }()
	_, addr, ok := strings.Cut(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("no address in %q", line)
	}
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Post("http://"+addr+"/shipments", "application/json", strings.NewReader(`{"order_id":"A-1","address":"1 Main St"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("POST /shipments: %d", resp.StatusCode)
	}
	resp, err = hc.Get("http://" + addr + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ Created int }
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || st.Created != 1 {
		t.Errorf("GET /stats: %+v %v", st, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after interrupt", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("demo-carrier did not stop when interrupted")
	}
}
