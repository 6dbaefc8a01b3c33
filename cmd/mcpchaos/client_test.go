package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
)

// served is a `mcpchaos serve` running in process.
type served struct {
	api     string            // the control API's URL
	proxies map[string]string // upstream → listen address
	logs    *lockedBuffer
	stop    func() int
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs `mcpchaos serve --log-format json ARGS` and reads its
// log until it serves; the addresses come from the log.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logR, logW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, append([]string{"serve", "--log-format", "json"}, args...), stdio{out: io.Discard, err: logW})
		logW.Close()
		done <- code
	}()
	s := &served{proxies: map[string]string{}, logs: &lockedBuffer{}}
	lines := bufio.NewScanner(logR)
	for lines.Scan() {
		s.logs.Write(append(lines.Bytes(), '\n'))
		var e map[string]any
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			t.Fatalf("log line is not JSON: %s", lines.Text())
		}
		switch e["message"] {
		case "proxy listening":
			s.proxies[e["upstream"].(string)] = e["listen"].(string)
		case "control API listening":
			s.api = "http://" + e["api"].(string)
		}
		if e["message"] == "serving; interrupt to stop" {
			break
		}
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(s.logs, logR)
	}()
	var once sync.Once
	code := -1
	s.stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(20 * time.Second):
				t.Error("serve did not stop within 20s")
			}
			<-copied
		})
		return code
	}
	t.Cleanup(func() { s.stop() })
	if s.api == "" && !strings.Contains(strings.Join(args, " "), "--api off") {
		select {
		case c := <-done:
			t.Fatalf("serve exited %d before serving:\n%s", c, s.logs)
		default:
			t.Fatalf("the control API's address was not logged:\n%s", s.logs)
		}
	}
	return s
}

// cli runs an mcpchaos command in process and returns its exit code and
// output.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(t.Context(), args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

// TestClientCommands drives a served API with the client commands: the
// token from the environment, settings from flags and environment.
func TestClientCommands(t *testing.T) {
	const token = "a-token-long-enough-for-the-test"
	t.Setenv("MCPCHAOS_TOKEN", token)
	t.Setenv("MCPCHAOS_DEFAULT_TTL", "2m")
	t.Setenv("MCPCHAOS_ACTOR", "tester")
	t.Setenv(asMainEnv, "1") // runs start this test binary as the demo server
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer upstream.Close()
	s := startServe(t, "--api", "127.0.0.1:0", "--max-ttl", "30m", "--runs")
	t.Setenv("MCPCHAOS_API", s.api)

	mustCLI := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := cli(t, args...)
		if code != want {
			t.Fatalf("mcpchaos %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out + errOut
	}
	out := mustCLI(0, "upstream", "add", "carrier", "--protocol", "http", "--target", upstream.URL)
	if !strings.Contains(out, "carrier") {
		t.Errorf("upstream add printed %q", out)
	}
	mustCLI(2, "upstream", "add", "carrier", "--target", upstream.URL) // taken: 409
	var ups api.UpstreamList
	decode(t, mustCLI(0, "upstream", "list", "--json"), &ups)
	if len(ups.Upstreams) != 1 || !ups.Upstreams[0].Enabled {
		t.Fatalf("upstream list: %+v", ups)
	}
	listen := ups.Upstreams[0].Listen

	mustCLI(0, "fault", "add", "down", "--upstream", "carrier", "--kind", "http_error", "--param", "status=503", "--when", `method == "GET"`)
	var fl api.FaultList
	decode(t, mustCLI(0, "fault", "list", "--json"), &fl)
	if len(fl.Faults) != 1 || fl.Faults[0].TTL != "2m0s" {
		t.Fatalf("fault list (ttl from MCPCHAOS_DEFAULT_TTL): %+v", fl)
	}
	if got := status(t, "http://"+listen+"/"); got != 503 {
		t.Errorf("through the proxy with the fault: %d, want 503", got)
	}
	mustCLI(2, "fault", "add", "long", "--kind", "latency", "--ttl", "2h")     // over --max-ttl
	mustCLI(2, "fault", "add", "typo", "--kind", "latency", "--when", "methd") // expression
	mustCLI(0, "fault", "disable", "down")
	if got := status(t, "http://"+listen+"/"); got != 200 {
		t.Errorf("through the proxy with the fault disabled: %d, want 200", got)
	}
	mustCLI(0, "fault", "enable", "down")
	out = mustCLI(0, "events", "--replay", "50", "--no-follow", "--type", "injection")
	if !strings.Contains(out, `rule="down"`) || !strings.Contains(out, "fault=http_error") {
		t.Errorf("events: %q", out)
	}
	if out = mustCLI(0, "halt"); !strings.Contains(out, "1 fault(s) removed") {
		t.Errorf("halt: %q", out)
	}
	mustCLI(2, "fault", "rm", "down") // gone: 404
	mustCLI(0, "upstream", "disable", "carrier")
	mustCLI(0, "upstream", "enable", "carrier")
	mustCLI(0, "upstream", "rm", "carrier")

	// run --api: the scenario runs on the server, the report prints here.
	scenario := filepath.Join("..", "..", "examples", "demo", "careless-unreachable.yaml")
	code, rep, errOut := cli(t, "run", "--api", s.api, "--host", "raw", "--format", "json", scenario)
	if code != exitFindings {
		t.Fatalf("run --api: exit %d, want 1 (findings)\n%s", code, errOut)
	}
	var report struct {
		Runs []struct {
			Host     string `json:"host"`
			Findings []struct {
				ID string `json:"id"`
			} `json:"findings"`
		} `json:"runs"`
	}
	decode(t, rep, &report)
	if len(report.Runs) != 1 || report.Runs[0].Host != "raw" || len(report.Runs[0].Findings) == 0 {
		t.Errorf("run --api report: %+v", report)
	}

	// Without the token: 401, exit 2.
	t.Setenv("MCPCHAOS_TOKEN", "")
	mustCLI(2, "fault", "list")
	// No server: exit 3.
	mustCLI(3, "halt", "--api", "http://127.0.0.1:1")

	if code := s.stop(); code != exitOK {
		t.Errorf("serve exited %d", code)
	}
	logs := s.logs.String()
	if strings.Contains(logs, token) {
		t.Error("the token was logged")
	}
	if !strings.Contains(logs, `"actor":"tester"`) || !strings.Contains(logs, `"action":"halt"`) {
		t.Errorf("the audit trail is not in the log:\n%s", logs)
	}
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
}

func status(t *testing.T, url string) int {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestServeRefusesOffLoopback: no token, no API off loopback; nothing
// starts.
func TestServeRefusesOffLoopback(t *testing.T) {
	t.Setenv("MCPCHAOS_TOKEN", "")
	code, _, errOut := cli(t, "serve", "--api", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(errOut, "token") {
		t.Fatalf("serve --api 0.0.0.0:0 without a token: exit %d, %s", code, errOut)
	}
	t.Setenv("MCPCHAOS_API_ADDR", "0.0.0.0:0")
	if code, _, errOut = cli(t, "serve"); code != exitUsage || !strings.Contains(errOut, "MCPCHAOS_TOKEN") {
		t.Fatalf("MCPCHAOS_API_ADDR=0.0.0.0:0 without a token: exit %d, %s", code, errOut)
	}
}

// TestServeSettingsPrecedence: a flag beats its environment variable,
// which beats the config file.
func TestServeSettingsPrecedence(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("default_ttl: 1m\nmax_ttl: 1h\nseed: 7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := func(args ...string) servePlan {
		t.Helper()
		fs := newFlags("serve", "", "", stdio{out: io.Discard, err: io.Discard})
		var sf serveFlags
		sf.register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := applyEnv(fs, serveEnv()); err != nil {
			t.Fatal(err)
		}
		p, err := sf.plan(fs)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := plan("--config", cfg); p.inject.DefaultTTL != time.Minute || p.inject.Seed != 7 || p.api.MaxTTL != time.Hour {
		t.Errorf("config only: %+v", p.inject)
	}
	t.Setenv("MCPCHAOS_DEFAULT_TTL", "2m")
	t.Setenv("MCPCHAOS_SEED", "8")
	if p := plan("--config", cfg); p.inject.DefaultTTL != 2*time.Minute || p.inject.Seed != 8 {
		t.Errorf("env over config: %+v", p.inject)
	}
	if p := plan("--config", cfg, "--default-ttl", "3m", "--seed", "9"); p.inject.DefaultTTL != 3*time.Minute || p.inject.Seed != 9 {
		t.Errorf("flag over env: %+v", p.inject)
	}
	t.Setenv("MCPCHAOS_CONFIG", cfg)
	t.Setenv("MCPCHAOS_ALLOW", "10.0.0.0/8,*.staging:*")
	t.Setenv("MCPCHAOS_RUNS", "false")
	p := plan("--allow", "db.internal:5432")
	if p.inject.Seed != 8 || p.api.EnableRuns || !p.api.Allow.Allows("db.internal:5432") || p.api.Allow.Allows("10.1.1.1:1") {
		t.Errorf("config from env, allow from the flag: %+v %+v", p.inject, p.api)
	}
	if p := plan("--api", "off"); p.apiAddr != "" {
		t.Errorf("--api off: %q", p.apiAddr)
	}
}
