package inject

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// testPKI is a private CA, as a team's staging upstream would have:
// nothing in the system's roots trusts it.
type testPKI struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
}

func newTestPKI(t testing.TB) *testPKI {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "private test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testPKI{cert: cert, key: key, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// serverCert is a certificate for names, signed by the private CA.
func (p *testPKI) serverCert(t testing.TB, names ...string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.cert, key.Public(), p.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func (p *testPKI) pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.cert)
	return pool
}

// fwdUpstream is a real upstream behind a forward proxy: it counts the
// requests it answered and serves h.
type fwdUpstream struct {
	srv  *httptest.Server
	hits atomic.Int64
	addr string
}

func startFwdUpstream(t testing.TB, h http.HandlerFunc, tlsCert *tls.Certificate) *fwdUpstream {
	t.Helper()
	u := &fwdUpstream{}
	u.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		h(w, r)
	}))
	if tlsCert != nil {
		u.srv.TLS = &tls.Config{Certificates: []tls.Certificate{*tlsCert}}
		u.srv.StartTLS()
	} else {
		u.srv.Start()
	}
	t.Cleanup(u.srv.Close)
	u.addr = u.srv.Listener.Addr().String()
	return u
}

// fwdRig is a registry with one forward upstream, "fwd".
type fwdRig struct {
	reg  *Registry
	sub  *Subscription
	addr string // the forward proxy's
}

func newFwdRig(t testing.TB, spec ForwardSpec) *fwdRig {
	t.Helper()
	rig := &fwdRig{reg: New(Options{Seed: 1})}
	rig.sub = rig.reg.Bus().Subscribe(1 << 12)
	info, err := rig.reg.AddUpstream(UpstreamSpec{Name: "fwd", Protocol: ProtocolForward, Forward: &spec})
	if err != nil {
		t.Fatal(err)
	}
	rig.addr = info.Listen
	t.Cleanup(func() {
		if err := rig.reg.Close(); err != nil {
			t.Errorf("close registry: %v", err)
		}
		rig.sub.Close()
	})
	return rig
}

// client is an HTTP client whose every request goes through the forward
// proxy, trusting roots for HTTPS.
func (rig *fwdRig) client(t testing.TB, roots *x509.CertPool) *http.Client {
	t.Helper()
	pu, _ := url.Parse("http://" + rig.addr)
	tr := &http.Transport{
		Proxy:           http.ProxyURL(pu),
		TLSClientConfig: &tls.Config{RootCAs: roots},
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: ioTimeout}
}

func (rig *fwdRig) put(t testing.TB, r rules.Rule) {
	t.Helper()
	if _, err := rig.reg.PutRule(r); err != nil {
		t.Fatal(err)
	}
}

// events returns the events published so far of type typ.
func (rig *fwdRig) events(typ EventType) []Event {
	var out []Event
	for {
		select {
		case e := <-rig.sub.C():
			if e.Type == typ {
				out = append(out, e)
			}
		default:
			return out
		}
	}
}

// waitEvent waits for the next event of type typ.
func (rig *fwdRig) waitEvent(t testing.TB, typ EventType) Event {
	t.Helper()
	return nextEvent(t, rig.sub, typ)
}

// resolveTo maps host:port to the upstream's address.
func resolveTo(hostport string, u *fwdUpstream) map[string]string {
	return map[string]string{hostport: u.addr}
}

// rawDial dials the forward proxy and writes req.
func (rig *fwdRig) rawDial(t testing.TB, req string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", rig.addr, ioTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	return c
}
