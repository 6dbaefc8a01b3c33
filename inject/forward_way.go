package inject

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// wayKind is how a destination is reached through a forward proxy.
type wayKind uint8

const (
	wayPlain  wayKind = iota // absolute-form plain-HTTP requests
	wayTLS                   // intercepted CONNECT tunnels: HTTP inside TLS
	wayTunnel                // CONNECT tunnels, as TCP streams
)

func (k wayKind) String() string {
	return [...]string{"http", "https", "tunnel"}[k]
}

// wayKey identifies a destination's proxy: one per host, port and way.
type wayKey struct {
	host, port string
	kind       wayKind
}

func (k wayKey) addr() string { return net.JoinHostPort(k.host, k.port) }

// names reports whether authority (host[:port], port 80 by default)
// names this plain-HTTP destination.
func (k wayKey) names(authority string) bool {
	t, err := splitAuthority(authority, "80")
	return err == nil && t.host == k.host && t.port == k.port
}

// originOf returns the origin form (path and query) of target, an
// absolute-form http:// target naming this destination; ok is false for
// any other target.
func (k wayKey) originOf(target []byte) (origin []byte, ok bool) {
	auth, ok := absoluteAuthority(string(target))
	if !ok || !k.names(auth) {
		return nil, false
	}
	rest := target[len("http://")+len(auth):]
	if len(rest) == 0 || rest[0] != '/' {
		return nil, false // "http://host?q": net/http decides
	}
	if bytes.IndexByte(target[:len("http://")+len(auth)], '%') >= 0 {
		return nil, false
	}
	return rest, true
}

// wayEnv is what a destination's proxy needs besides an upstream's own.
type wayEnv struct {
	fwd *forwardProxy
	key wayKey
	// authority is the Host header upstream: the host, with the port
	// unless it is the scheme's default.
	authority string
	// dialAddr is what is dialled: the destination, or what the forward
	// proxy's resolve map says.
	dialAddr string
	// upTLS is the upstream's TLS (an intercepted tunnel's), serverTLS
	// the client's; nil for the other ways.
	upTLS, serverTLS *tls.Config
}

// errTLSUpstream marks a failed TLS handshake with a real upstream.
var errTLSUpstream = errors.New("TLS handshake with the upstream failed")

// dial connects to the destination, within dialTimeout, and for an
// intercepted tunnel completes a verified TLS handshake, within
// tlsHandshakeTimeout.
func (w *wayEnv) dial(ctx context.Context) (net.Conn, error) {
	d := net.Dialer{Timeout: dialTimeout, KeepAlive: dialKeepAlive}
	c, err := d.DialContext(ctx, "tcp", w.dialAddr)
	if err != nil || w.upTLS == nil {
		return c, err
	}
	tc := tls.Client(c, w.upTLS)
	hctx, cancel := context.WithTimeout(ctx, tlsHandshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("%w (%s): %w", errTLSUpstream, w.key.host, err)
	}
	return tc, nil
}

// serves reports whether r, read on a connection of this destination,
// is for it: a plain-HTTP destination's keep-alive connection may name
// another host in a later request.
func (w *wayEnv) serves(r *http.Request) bool {
	return w.key.kind != wayPlain || (strings.EqualFold(r.URL.Scheme, "http") && w.key.names(r.URL.Host))
}

// way is one destination's proxy.
type way struct {
	env  *wayEnv
	name string
	g    *gate
	p    proxy
	http *httpProxy // one of http and tcp is set
	tcp  *tcpProxy
}

// hand gives the destination's proxy a client connection: for a tunnel,
// its CONNECT is still to be answered; pending is what was read past the
// head (a plain request's whole head and more).
func (w *way) hand(c *net.TCPConn, connect bool, pending []byte) {
	var tun *tunnel
	if connect {
		tun = &tunnel{c: c, pending: pending}
		pending = nil
	}
	if w.tcp != nil {
		w.tcp.start(c, tun)
		return
	}
	w.http.admit(c, tun, pending)
}

// destination returns the proxy of the destination t names, reached by
// kind, creating it if it is new; or the answer refusing it (too many
// destinations, one the allowlist denies, the proxy closing).
func (f *forwardProxy) destination(t fwdTarget, kind wayKind) (*way, *proxyAnswer) {
	key := wayKey{host: t.host, port: t.port, kind: kind}
	f.mu.Lock()
	defer f.mu.Unlock()
	if w := f.ways[key]; w != nil {
		return w, nil
	}
	if f.closed {
		return nil, &proxyAnswer{status: 502, perr: "proxy_internal_error", detail: "the proxy is closing"}
	}
	if len(f.ways) >= f.spec.hostsLimit() {
		f.pe.log.Warn().Str("destination", key.addr()).Int("max_hosts", f.spec.hostsLimit()).
			Msg("forward proxy: too many destinations; refusing a new one")
		return nil, &proxyAnswer{status: 403, perr: "proxy_configuration_error",
			detail: fmt.Sprintf("too many destinations (max_hosts %d)", f.spec.hostsLimit())}
	}
	dialAddr := key.addr()
	if to, ok := f.spec.Resolve[dialAddr]; ok {
		dialAddr = to
	}
	if a := f.spec.Allow; a != nil && (!a(key.addr()) || !a(dialAddr)) {
		return nil, &proxyAnswer{status: 403, perr: "destination_ip_prohibited",
			detail: fmt.Sprintf("%s is not in the server's allowlist", key.addr())}
	}
	w, err := f.newWay(key, dialAddr)
	if err != nil {
		f.pe.log.Error().Err(err).Str("destination", key.addr()).Msg("forward proxy: destination")
		return nil, &proxyAnswer{status: 502, perr: "proxy_internal_error", detail: "cannot start the destination's proxy"}
	}
	f.ways[key] = w
	return w, nil
}

// newWay starts the proxy of a new destination; f.mu is held, so that a
// rule change reaches it in order (see changed).
func (f *forwardProxy) newWay(key wayKey, dialAddr string) (*way, error) {
	name := cmp.Or(f.names[key.host], key.host)
	env := &wayEnv{fwd: f, key: key, authority: key.addr(), dialAddr: dialAddr}
	defPort, proto := "80", ProtocolHTTP
	switch key.kind {
	case wayTLS:
		defPort = "443"
		env.upTLS = f.upTLS.forHost(key.host)
		env.serverTLS = f.ca.serverConfig(key.host)
	case wayTunnel:
		defPort, proto = "443", ProtocolTCP
	}
	if key.port == defPort {
		env.authority = key.host
		if strings.Contains(key.host, ":") {
			env.authority = "[" + key.host + "]"
		}
	}
	pe := &proxyEnv{
		id:    ident{name: name, protocol: proto, host: key.host, via: f.name},
		spec:  UpstreamSpec{Name: name, Protocol: proto, Target: key.addr()},
		table: f.pe.table,
		bus:   f.pe.bus,
		log:   f.pe.log.With().Str("destination", name).Str("way", key.kind.String()).Logger(),
		call:  f.pe.call,
		way:   env,
	}
	g := virtualGate(f.g.Addr())
	w := &way{env: env, name: name, g: g}
	var err error
	if proto == ProtocolTCP {
		var p proxy
		p, err = newTCPProxy(pe, g)
		if err == nil {
			w.p, w.tcp = p, p.(*tcpProxy)
		}
	} else {
		var p proxy
		p, err = newHTTPProxy(pe, g)
		if err == nil {
			w.p, w.http = p, p.(*httpProxy)
		}
	}
	if err != nil {
		return nil, err
	}
	w.p.changed(f.pe.table.Load())
	return w, nil
}

// serveOther serves a request that came on a connection of another
// destination (a keep-alive connection naming a new host) through the
// destination it names; tc keeps its number on its first destination.
func (f *forwardProxy) serveOther(w http.ResponseWriter, r *http.Request, tc *trackedConn) {
	answer := func(a proxyAnswer) {
		w.Header().Set("Proxy-Status", fmt.Sprintf("mcpchaos; error=%s; details=%q", a.perr, a.detail))
		w.Header().Set("Connection", "close")
		http.Error(w, "mcpchaos forward proxy: "+a.detail, a.status)
	}
	if !strings.EqualFold(r.URL.Scheme, "http") || r.URL.Host == "" {
		answer(proxyAnswer{status: 400, perr: "http_request_error",
			detail: "the request target must be an absolute http:// URL"})
		return
	}
	t, err := splitAuthority(r.URL.Host, "80")
	if err != nil {
		answer(proxyAnswer{status: 400, perr: "http_request_error", detail: err.Error()})
		return
	}
	d, ans := f.destination(t, wayPlain)
	switch {
	case ans != nil:
		answer(*ans)
	case d.g.refusing():
		answer(proxyAnswer{status: 502, perr: "connection_refused", detail: "connection refused"})
	default:
		d.http.serve(w, r, tc)
	}
}
