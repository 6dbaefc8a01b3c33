package inject

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/rules"
)

// Without interception a CONNECT tunnel is a TCP upstream named by its
// host: the client's TLS goes through untouched (it verifies the real
// upstream), and the TCP fault kinds apply per destination.
func TestForwardTunnel(t *testing.T) {
	pki := newTestPKI(t)
	cert := pki.ServerCert(t, "ledger.example.test")
	up := startFwdUpstream(t, okHandler, &cert)
	rig := newFwdRig(t, ForwardSpec{Resolve: resolveTo("ledger.example.test:443", up)})
	get := func() error {
		c := rig.client(t, pki.Pool()) // a new connection each time
		resp, err := c.Get("https://ledger.example.test/charges")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || string(b) != "ok ledger.example.test /charges" {
			t.Fatalf("got %d %q", resp.StatusCode, b)
		}
		return nil
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	e := rig.waitEvent(t, EventConnOpen)
	if e.Upstream != "ledger.example.test" || e.Protocol != ProtocolTCP || e.Via != "fwd" || e.Host != "ledger.example.test" {
		t.Fatalf("conn_open %+v; want a tcp upstream ledger.example.test via fwd", e)
	}

	// Refused: the CONNECT gets a 502, nothing reaches the upstream.
	before := up.hits.Load()
	rig.put(t, rules.Rule{Name: "down", Upstream: "ledger.example.test", Fault: rules.FaultSpec{Kind: "unreachable"}})
	if err := get(); err == nil || !strings.Contains(err.Error(), "Bad Gateway") {
		t.Errorf("refused: %v; want the CONNECT answered Bad Gateway", err)
	}
	if err := rig.reg.RemoveRule("down"); err != nil {
		t.Fatal(err)
	}
	// Reset as the request's first bytes pass: the TLS handshake fails.
	rig.put(t, rules.Rule{Name: "rst", Upstream: "ledger.example.test",
		Fault: rules.FaultSpec{Kind: "reset", Params: map[string]any{"direction": "request"}}})
	if err := get(); err == nil {
		t.Errorf("reset: no error; want the tunnel reset")
	}
	if up.hits.Load() != before {
		t.Errorf("the upstream answered %d requests while refused or reset; want none", up.hits.Load()-before)
	}
	// An HTTP-level rule cannot see inside a tunnel: it never applies.
	if err := rig.reg.RemoveRule("rst"); err != nil {
		t.Fatal(err)
	}
	rig.put(t, rules.Rule{Name: "http", Upstream: "ledger.example.test", When: `method == "GET"`,
		Fault: rules.FaultSpec{Kind: "response_lost"}})
	if err := get(); err != nil {
		t.Errorf("an HTTP rule on a tunnel: %v; want the request through", err)
	}
}

// With interception the tunnel's TLS ends at the proxy, with a
// certificate the run CA minted for the name; the proxy verifies the
// real upstream against a private CA; the requests inside take the HTTP
// rule path: response_lost lets the upstream commit and loses the reply.
// The CA's key appears in no event and no log line.
func TestForwardIntercept(t *testing.T) {
	pki := newTestPKI(t)
	cert := pki.ServerCert(t, "ledger.example.test")
	up := startFwdUpstream(t, okHandler, &cert)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := NewCA(caKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	reg := New(Options{Seed: 1, Logger: zerolog.New(&logs).Level(zerolog.DebugLevel)})
	sub := reg.Bus().Subscribe(1 << 12)
	defer sub.Close()
	defer reg.Close()
	info, err := reg.AddUpstream(UpstreamSpec{Name: "fwd", Protocol: ProtocolForward, Forward: &ForwardSpec{
		InterceptTLS: true, UpstreamCA: pki.CertPEM, CA: ca,
		Resolve: resolveTo("ledger.example.test:443", up),
	}})
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := reg.ForwardCA("fwd")
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("ForwardCA is not a PEM certificate")
	}
	pu, _ := url.Parse("http://" + info.Listen)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{RootCAs: roots}}, Timeout: ioTimeout}
	defer c.CloseIdleConnections()

	resp, err := c.Get("https://ledger.example.test/charges")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "ok ledger.example.test /charges" {
		t.Fatalf("got %q", b)
	}
	if got := resp.TLS.PeerCertificates[0]; got.Issuer.CommonName == "private test CA" || got.DNSNames[0] != "ledger.example.test" {
		t.Fatalf("the client met %v issued by %v; want a certificate the run CA minted for ledger.example.test", got.DNSNames, got.Issuer)
	}

	if _, err := reg.PutRule(rules.Rule{Name: "lost", When: `method == "POST" && path == "/charges"`,
		Fault: rules.FaultSpec{Kind: "response_lost"}}); err != nil {
		t.Fatal(err)
	}
	before := up.hits.Load()
	short := &http.Client{Transport: c.Transport, Timeout: 300 * time.Millisecond}
	if _, err := short.Post("https://ledger.example.test/charges", "application/json", strings.NewReader(`{"amount":5}`)); err == nil {
		t.Fatal("the POST got its reply; want it lost")
	}
	var ex Event
	var events []Event
	deadline := time.After(ioTimeout)
	for ex.Type == "" {
		select {
		case e := <-sub.C():
			events = append(events, e)
			if e.Type == EventExchange && e.Method == "POST" {
				ex = e
			}
		case <-deadline:
			t.Fatal("no exchange event for the POST")
		}
	}
	if !ex.Committed || ex.Status != 200 || ex.ClientStatus != 0 || ex.Rule != "lost" ||
		ex.Upstream != "ledger.example.test" || ex.Via != "fwd" || ex.Protocol != ProtocolHTTP {
		t.Errorf("exchange %+v; want committed (200) with no reply to the client, rule lost, ledger.example.test via fwd", ex)
	}
	if up.hits.Load() != before+1 {
		t.Errorf("the upstream answered %d requests; want the POST committed once", up.hits.Load()-before)
	}

	// Nothing of the key: not its PEM, not its DER in base64.
	der, _ := x509.MarshalECPrivateKey(caKey)
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(caKey)
	secrets := [][]byte{
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}),
		[]byte(base64.StdEncoding.EncodeToString(der)), []byte(base64.StdEncoding.EncodeToString(pkcs8)),
	}
	if raw, err := caKey.Bytes(); err == nil {
		secrets = append(secrets, raw)
	}
	ev, err := json.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	info2, err := json.Marshal(reg.Upstreams())
	if err != nil {
		t.Fatal(err)
	}
	for _, haystack := range [][]byte{logs.Bytes(), ev, info2, caPEM} {
		for _, s := range secrets {
			if bytes.Contains(haystack, s) {
				t.Fatalf("the run CA's key appears in %.200s", haystack)
			}
		}
	}
}

// An upstream whose certificate nothing trusts is not reached: the
// client gets a 502 from the proxy, and the exchange says the upstream
// did not commit.
func TestForwardInterceptUntrustedUpstream(t *testing.T) {
	pki := newTestPKI(t)
	cert := pki.ServerCert(t, "ledger.example.test")
	up := startFwdUpstream(t, okHandler, &cert)
	rig := newFwdRig(t, ForwardSpec{InterceptTLS: true, Resolve: resolveTo("ledger.example.test:443", up)})
	caPEM, err := rig.reg.ForwardCA("fwd")
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	resp, err := rig.client(t, roots).Get("https://ledger.example.test/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	e := rig.waitEvent(t, EventExchange)
	if resp.StatusCode != 502 || e.Committed || e.Reached || up.hits.Load() != 0 {
		t.Errorf("got %d, exchange %+v, %d upstream hits; want 502, nothing reached", resp.StatusCode, e, up.hits.Load())
	}
	if _, err := rig.reg.ForwardCA("nope"); !errors.Is(err, ErrUnknownUpstream) {
		t.Errorf("ForwardCA of an unknown upstream: %v", err)
	}
}
