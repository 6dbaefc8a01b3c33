package inject

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testpki"
	"github.com/mcpchaos/mcpchaos/rules"
)

// testPKI is a private CA (see testpki).
type testPKI = testpki.CA

func newTestPKI(t testing.TB) *testPKI { return testpki.New(t) }

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
