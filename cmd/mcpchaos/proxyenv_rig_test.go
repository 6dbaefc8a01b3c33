package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/internal/testpki"
)

// buildLedger builds testdata/ledger-mcp, the proxy-environment tests'
// MCP server, and returns the binary's path.
func buildLedger(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ledger-mcp")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./testdata/ledger-mcp")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building ledger-mcp: %v\n%s", err, out)
	}
	return bin
}

// ledger is a staging ledger behind TLS with a private CA: it commits a
// charge for every whole POST /charges.
type ledger struct {
	srv     *httptest.Server
	ca      *testpki.CA
	caFile  string
	charges atomic.Int64
}

func startLedger(t *testing.T) *ledger {
	t.Helper()
	l := &ledger{ca: testpki.New(t)}
	l.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/charges" {
			http.NotFound(w, r)
			return
		}
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		n := l.charges.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = fmt.Fprintf(w, `{"id":"ch_%d"}`, n)
	}))
	l.srv.TLS = &tls.Config{Certificates: []tls.Certificate{l.ca.ServerCert(t, "ledger.example.test")}}
	// A reset tunnel fails the handshake on purpose: not worth a line.
	l.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	l.srv.StartTLS()
	t.Cleanup(l.srv.Close)
	l.caFile = filepath.Join(t.TempDir(), "ledger-ca.pem")
	if err := os.WriteFile(l.caFile, l.ca.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return l
}

// resolve is the --resolve entry sending ledger.example.test to l.
func (l *ledger) resolve() string {
	return "ledger.example.test:443=" + l.srv.Listener.Addr().String()
}

// runCLI runs mcpchaos with args and returns the exit code and the
// report (--format json) it wrote on stdout.
func runReportCLI(t *testing.T, args ...string) (int, report.Report, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(t.Context(), args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	var rep report.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("mcpchaos %s: exit %d, no JSON report: %v\nstderr:\n%s", strings.Join(args, " "), code, err, errb.String())
	}
	return code, rep, errb.String()
}

// runOf returns the run whose scenario name has every part, or fails.
func runOf(t *testing.T, rep report.Report, parts ...string) report.RunReport {
	t.Helper()
	for _, r := range rep.Runs {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(r.Scenario, p)
		}
		if ok {
			return r
		}
	}
	var names []string
	for _, r := range rep.Runs {
		names = append(names, r.Scenario)
	}
	t.Fatalf("no run named with %q among %q", parts, names)
	return report.RunReport{}
}

// needPython returns python3's path; without it the test is skipped,
// except under CI, where its absence is a failure.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is not installed; the CI image must have it")
		}
		t.Skip("python3 is not installed")
	}
}
