package inject

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// confPath is one way traffic reaches the proxies: an upstream of its
// own, or a forward upstream's destination (plain HTTP in absolute form,
// a CONNECT tunnel, an intercepted tunnel). The same table runs through
// each: a fault kind means the same on every path.
type confPath struct {
	name  string
	proto string // the requests' protocol, and the kind's: tcp or http
	fwd   string // "", or the forward way: http, tunnel, tls
}

var confPaths = []confPath{
	{"tcp", ProtocolTCP, ""}, {"http", ProtocolHTTP, ""},
	{"forward-http", ProtocolHTTP, "http"}, {"forward-tunnel", ProtocolTCP, "tunnel"}, {"forward-tls", ProtocolHTTP, "tls"},
}

// confHost is the destination forward clients name; the forward upstream
// resolves it to the conformance upstream.
const confHost = "conf.example.test"

// confPort is the port a forward path's clients name.
func (p confPath) confPort() string {
	if p.fwd == "http" {
		return "80"
	}
	return "443"
}

// forwardSpec is the forward upstream of the path, resolving confHost
// to target (host:port).
func (p confPath) forwardSpec(target string, pki *testPKI) *ForwardSpec {
	f := &ForwardSpec{Resolve: map[string]string{net.JoinHostPort(confHost, p.confPort()): target}}
	if p.fwd == "tls" {
		f.InterceptTLS, f.UpstreamCA = true, pki.CertPEM
	}
	return f
}

// absoluteForm rewrites an origin-form request for a forward proxy.
func absoluteForm(req []byte) []byte {
	req = bytes.Replace(req, []byte(" /op "), []byte(" http://"+confHost+"/op "), 1)
	return bytes.Replace(req, []byte("Host: upstream"), []byte("Host: "+confHost), 1)
}

// dialForward dials a forward upstream at addr as a client of path p
// would. A tunnel's CONNECT answer is awaited for shortWait: a refusal
// returns end "refused"; no answer leaves the tunnel pending (a
// blackhole), to be opened when the exchange is received.
func dialForward(p confPath, addr string, tlsConf *tls.Config) (*confClient, string, error) {
	cc, err := dialConf(p.proto, addr)
	if err != nil {
		return nil, "", err
	}
	cc.fwd, cc.tlsConf = p.fwd, tlsConf
	if p.fwd == "http" {
		return cc, "", nil
	}
	_ = cc.c.SetWriteDeadline(time.Now().Add(ioTimeout))
	hp := net.JoinHostPort(confHost, p.confPort())
	if _, err := fmt.Fprintf(cc.c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hp, hp); err != nil {
		cc.close()
		return nil, "", err
	}
	if end := cc.openTunnel(shortWait); end != "" && end != "hang" {
		cc.close()
		return nil, end, nil
	}
	return cc, "", nil
}

// openTunnel reads the CONNECT answer, waiting up to wait, and opens the
// tunnel: the TLS handshake when intercepted, then the request held
// until now. It returns "" once open, "hang" when no answer came, or how
// the dial ended (refused by the proxy, reset, ...).
func (cc *confClient) openTunnel(wait time.Duration) string {
	_ = cc.c.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(cc.br, &http.Request{Method: http.MethodConnect})
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "hang"
	case err != nil:
		return endOf(err)
	case refusedByProxy(resp):
		return "refused"
	case resp.StatusCode != 200:
		return fmt.Sprintf("CONNECT answered %d", resp.StatusCode)
	}
	cc.open = true
	if cc.fwd == "tls" {
		tc := tls.Client(&prefixConn{Conn: cc.c, pending: buffered(cc.br)}, cc.tlsConf)
		_ = tc.SetDeadline(time.Now().Add(ioTimeout))
		if err := tc.Handshake(); err != nil {
			return endOf(err)
		}
		_ = tc.SetDeadline(time.Time{})
		cc.c, cc.br = tc, bufio.NewReader(tc)
	}
	if cc.held != nil {
		_ = cc.c.SetWriteDeadline(time.Now().Add(ioTimeout))
		_, cc.sendErr = cc.c.Write(cc.held)
		cc.held = nil
	}
	return ""
}

// buffered returns what br holds, consuming it.
func buffered(br *bufio.Reader) []byte {
	b, _ := br.Peek(br.Buffered())
	out := bytes.Clone(b)
	_, _ = br.Discard(len(b))
	return out
}

// refusedByProxy reports whether resp is a forward proxy's answer for a
// dial refused (a fault, or a dead upstream).
func refusedByProxy(resp *http.Response) bool {
	return resp.StatusCode == http.StatusBadGateway &&
		strings.Contains(resp.Header.Get("Proxy-Status"), "error=connection_refused")
}
