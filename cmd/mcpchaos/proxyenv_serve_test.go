package main

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeForwardUpstream: `mcpchaos serve` and the client commands
// with a forward upstream, as a game day would use them: `upstream add
// --protocol forward --intercept-tls` writes the CA for the server to
// trust, an HTTPS client through the proxy reaches the private-CA ledger
// by name, `upstream list` shows the host it reached, and a fault on the
// declared host loses the charge's reply after the ledger committed it.
func TestServeForwardUpstream(t *testing.T) {
	const token = "a-token-long-enough-for-the-test"
	t.Setenv("MCPCHAOS_TOKEN", token)
	l := startLedger(t)
	s := startServe(t, "--api", "127.0.0.1:0")
	t.Setenv("MCPCHAOS_API", s.api)
	mustCLI := func(args ...string) string {
		t.Helper()
		code, out, errOut := cli(t, args...)
		if code != 0 {
			t.Fatalf("mcpchaos %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	caOut := filepath.Join(t.TempDir(), "run-ca.pem")
	out := mustCLI("upstream", "add", "web", "--protocol", "forward", "--intercept-tls", "--resolve", l.resolve(),
		"--upstream-ca", l.caFile, "--host", "ledger=ledger.example.test", "--ca-out", caOut)
	listen := between(out, "web", "\n")
	listen = strings.Fields(listen)[1] // PROTOCOL LISTEN ...
	pem, err := os.ReadFile(caOut)
	if err != nil || !strings.Contains(string(pem), "BEGIN CERTIFICATE") || strings.Contains(string(pem), "PRIVATE") {
		t.Fatalf("--ca-out wrote %q, %v", pem, err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	pu, _ := url.Parse("http://" + listen)
	client := func(timeout time.Duration) *http.Client {
		return &http.Client{Timeout: timeout, Transport: &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{RootCAs: roots}}}
	}
	resp, err := client(10*time.Second).Post("https://ledger.example.test/charges", "application/json", strings.NewReader(`{"amount":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("through the forward upstream: %d", resp.StatusCode)
	}
	if list := mustCLI("upstream", "list"); !strings.Contains(list, "ledger") || !strings.Contains(list, "via web") ||
		!strings.Contains(list, "https :443 → "+l.srv.Listener.Addr().String()) {
		t.Errorf("upstream list:\n%s", list)
	}
	mustCLI("fault", "add", "lost", "--upstream", "ledger", "--kind", "response_lost", "--when", `method == "POST"`)
	if _, err := client(300*time.Millisecond).Post("https://ledger.example.test/charges", "application/json", strings.NewReader(`{"amount":2}`)); err == nil {
		t.Error("the charge's reply came back; want it lost")
	}
	deadline := time.Now().Add(10 * time.Second)
	for l.charges.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if l.charges.Load() != 2 {
		t.Errorf("the ledger committed %d charges; want the second one committed although its reply was lost", l.charges.Load())
	}
}

// between returns what follows from in s up to to.
func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(after, to)
	return v
}
