package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// TestScanInterceptsTLS: a go-sdk server whose charge tool POSTs to
// https://ledger.example.test/charges with Go's default client, no
// base-URL setting, against a staging ledger with a private CA. With
// --intercept-tls, --resolve and --upstream-ca, scan's response_lost
// fault lands on the POST: the ledger commits, the server sees no reply
// (its own deadline), and the report counts the committed write from the
// exchange events.
func TestScanInterceptsTLS(t *testing.T) {
	bin := buildLedger(t)
	l := startLedger(t)
	_, rep, stderr := runReportCLI(t, "scan", "--intercept-tls", "--resolve", l.resolve(), "--upstream-ca", l.caFile,
		"--faults", "response_lost", "--host", "raw", "--read", "fetch_rates", "--format", "json", "--", bin)
	r := runOf(t, rep, "response_lost", "charge")
	if r.Error != "" || len(r.Calls) == 0 {
		t.Fatalf("run %q: error %q, %d calls\n%s", r.Scenario, r.Error, len(r.Calls), stderr)
	}
	c := r.Calls[0]
	if len(c.Injections) == 0 || c.Committed == 0 {
		t.Errorf("first charge: injections %v, committed %d; want the fault applied and the write committed", c.Injections, c.Committed)
	}
	if c.Channel != transcript.ChannelToolError || !strings.Contains(c.Text, "did not confirm") {
		t.Errorf("first charge: %s %q; want the server's own error for a reply that never came", c.Channel, c.Text)
	}
	if l.charges.Load() == 0 {
		t.Error("the ledger committed no charge")
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "no traffic") || strings.Contains(w, "interception") {
			t.Errorf("warning %q; the fault applied", w)
		}
	}
}

// TestScanTunnelsWithoutInterception: the same server without
// --intercept-tls (it trusts the ledger's CA itself): each CONNECT tunnel
// is a TCP upstream named by its host, refuse, timeout and reset apply to
// it, and the cell whose fault is HTTP-level says it needs interception.
func TestScanTunnelsWithoutInterception(t *testing.T) {
	bin := buildLedger(t)
	l := startLedger(t)
	_, rep, stderr := runReportCLI(t, "scan", "--resolve", l.resolve(), "--env", "SSL_CERT_FILE="+l.caFile,
		"--faults", "unreachable,timeout,reset,http_error", "--host", "raw", "--read", "fetch_rates", "--format", "json", "--", bin)
	for _, kind := range []string{"unreachable", "timeout", "reset"} {
		r := runOf(t, rep, kind, "charge")
		if r.Error != "" || len(r.Calls) == 0 {
			t.Fatalf("run %q: error %q\n%s", r.Scenario, r.Error, stderr)
		}
		c := r.Calls[0]
		if len(c.Faults) == 0 || c.Channel != transcript.ChannelToolError {
			t.Errorf("%s: first charge %s %q, faults %+v; want the tunnel's fault applied and the server's error", kind, c.Channel, c.Text, c.Faults)
		}
	}
	r := runOf(t, rep, "http_error", "charge")
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, agentsim.WarnNeedsInterception) }) {
		t.Errorf("http_error on a tunnel: warnings %q; want %q", r.Warnings, agentsim.WarnNeedsInterception)
	}
	if c := r.Calls[0]; c.Channel != transcript.ChannelSuccess || len(c.Injections) > 0 {
		t.Errorf("http_error on a tunnel: %s %q, injections %v; want the charge through, untouched", c.Channel, c.Text, c.Injections)
	}
}

// TestRunProxyEnvPython: a second HTTP stack, a Python stdlib urllib
// client the server starts as a subprocess, reaches a plain-HTTP host
// through proxy_env: an HTTP-level rule on that host (declared with a
// friendlier name) fails its request before the upstream sees it.
func TestRunProxyEnvPython(t *testing.T) {
	needPython(t)
	bin := buildLedger(t)
	var hits atomic.Int64
	rates := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, `{"EUR":1}`)
	}))
	t.Cleanup(rates.Close)
	sc := `name: rates through the proxy environment
server:
  command: [` + bin + `]
  proxy_env: true
  resolve: ["rates.example.test:80=` + strings.TrimPrefix(rates.URL, "http://") + `"]
upstreams:
  - {name: rates, host: rates.example.test}
rules:
  - name: rates down
    upstream: rates
    when: method == "GET" && path == "/rates" && query["c"] == "EUR"
    fault: {kind: http_error, status: 503}
agent: {personas: [diligent], hosts: [raw], budget: 2}
steps:
  - tool: fetch_rates
    args: {currency: EUR}
`
	file := filepath.Join(t.TempDir(), "rates.yaml")
	if err := os.WriteFile(file, []byte(sc), 0o600); err != nil {
		t.Fatal(err)
	}
	_, rep, stderr := runReportCLI(t, "run", "--format", "json", file)
	if len(rep.Runs) != 1 || rep.Runs[0].Error != "" || len(rep.Runs[0].Calls) == 0 {
		t.Fatalf("report %+v\n%s", rep.Runs, stderr)
	}
	c := rep.Runs[0].Calls[0]
	if !slices.Contains(c.Injections, "rates down") || !strings.Contains(c.Text, "503") {
		t.Errorf("fetch_rates: %s %q, injections %v; want the 503 the rule answered, as urllib saw it", c.Channel, c.Text, c.Injections)
	}
	if hits.Load() != 0 {
		t.Errorf("the rates service answered %d requests; want none (http_error answers before the upstream)", hits.Load())
	}
}

// TestRunProxyEnvNoTraffic: a server whose traffic never reaches the
// forward proxy (here its own NO_PROXY, which proxy_env keeps, names the
// host) gets no fault, and its run says so rather than grading replies
// as if the fault had applied.
func TestRunProxyEnvNoTraffic(t *testing.T) {
	bin := buildLedger(t)
	l := startLedger(t)
	sc := `name: the server goes around the proxy
server:
  command: [` + bin + `]
  env: {NO_PROXY: ledger.example.test}
  proxy_env: true
  resolve: ["` + l.resolve() + `"]
upstreams:
  - {name: ledger, host: ledger.example.test}
rules:
  - {name: lost, upstream: ledger, fault: {kind: response_lost}}
agent: {personas: [diligent], hosts: [raw], budget: 1}
steps:
  - {tool: charge, args: {amount: 5}}
`
	file := filepath.Join(t.TempDir(), "around.yaml")
	if err := os.WriteFile(file, []byte(sc), 0o600); err != nil {
		t.Fatal(err)
	}
	_, rep, stderr := runReportCLI(t, "run", "--format", "json", file)
	if len(rep.Runs) != 1 || len(rep.Runs[0].Calls) == 0 {
		t.Fatalf("report %+v\n%s", rep.Runs, stderr)
	}
	r := rep.Runs[0]
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, agentsim.WarnNoProxyTraffic) }) {
		t.Errorf("warnings %q; want %q", r.Warnings, agentsim.WarnNoProxyTraffic)
	}
	if c := r.Calls[0]; len(c.Injections) > 0 || l.charges.Load() != 0 {
		t.Errorf("call %+v, %d charges: want no fault and nothing reached (the host does not resolve without the proxy)", c, l.charges.Load())
	}
}
