package inject

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"strings"
	"time"
)

// Bounds of a forward upstream's configuration and traffic.
const (
	// DefaultMaxHosts bounds the destinations a forward proxy creates
	// when its spec says nothing: each is an upstream with proxies of its
	// own, so a client naming endless hosts must not create endless
	// upstreams.
	DefaultMaxHosts = 64
	// MaxMaxHosts is the most a spec may ask for.
	MaxMaxHosts = 4096
	// maxResolve bounds the entries of a resolve map.
	maxResolve = 256
	// maxUpstreamCA bounds the PEM of extra upstream CAs.
	maxUpstreamCA = 1 << 20
	// dialKeepAlive is the keep-alive period of dialled upstreams.
	dialKeepAlive = 30 * time.Second
)

// ForwardSpec configures an upstream of protocol "forward": an HTTP
// forward proxy, handed to a server through HTTP_PROXY and HTTPS_PROXY.
// Each host it reaches becomes an upstream named by the host (or by the
// name Hosts gives it): absolute-form plain-HTTP requests take the HTTP
// rule path, CONNECT tunnels the TCP one, or the HTTP one when
// InterceptTLS is set. The zero value proxies every destination without
// interception.
type ForwardSpec struct {
	// InterceptTLS terminates the TLS of every CONNECT tunnel with a
	// certificate minted for the name the client asked for, signed by a
	// CA created in memory for this proxy (see [Registry.ForwardCA]);
	// the proxy then speaks TLS to the real upstream, verified against
	// the system's roots and UpstreamCA. Requests inside take the HTTP
	// rule path.
	InterceptTLS bool
	// UpstreamCA holds PEM CA certificates trusted, besides the system's
	// roots, when verifying the real upstream of an intercepted tunnel.
	UpstreamCA []byte
	// Resolve maps a destination as clients name it ("host:port") to the
	// address dialled instead ("addr:port"), as curl's --resolve does:
	// a server can call https://api.example.test while a local server
	// answers. Parse entries with [ParseResolve].
	Resolve map[string]string
	// Hosts names destinations ahead of their traffic: rules and
	// side-effect matchers can name them (a friendlier name, if given)
	// before the first request.
	Hosts []ForwardHost
	// MaxHosts bounds the destinations the proxy creates (declared ones
	// included); 0 means [DefaultMaxHosts]. A request for a host beyond
	// it is answered 403.
	MaxHosts int
	// CA, when set, signs intercepted tunnels' certificates; nil (the
	// default) makes one in memory when the proxy starts ([NewCA]).
	CA *CA `json:"-"`
	// Allow, when set, decides whether a destination may be dialled: it
	// is asked about the destination as the client names it (host:port)
	// and about the address it resolves to. Nil allows every one.
	Allow func(addr string) bool `json:"-"`
}

// ForwardHost names one destination of a forward upstream.
type ForwardHost struct {
	// Name is the upstream's name in rules, events and the API; empty
	// means Host.
	Name string
	// Host is the host name (or IP) clients ask for, without a port.
	Host string
}

// hostsLimit is the spec's bound on destinations.
func (f *ForwardSpec) hostsLimit() int {
	if f == nil || f.MaxHosts == 0 {
		return DefaultMaxHosts
	}
	return f.MaxHosts
}

func (s *UpstreamSpec) validateForward() error {
	fail := func(field, format string, args ...any) error {
		return &SpecError{Upstream: s.Name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if s.Target != "" {
		return fail("target", "must be empty for a forward upstream: each request names its destination")
	}
	if s.Forward == nil {
		s.Forward = &ForwardSpec{}
	}
	f := s.Forward
	if f.MaxHosts < 0 || f.MaxHosts > MaxMaxHosts {
		return fail("max_hosts", "must be from 0 to %d, not %d", MaxMaxHosts, f.MaxHosts)
	}
	if len(f.Hosts) > f.hostsLimit() {
		return fail("hosts", "lists %d hosts, over max_hosts (%d)", len(f.Hosts), f.hostsLimit())
	}
	names, hosts := map[string]bool{}, map[string]bool{}
	for i, h := range f.Hosts {
		host := strings.ToLower(h.Host)
		if err := checkHostPort(net.JoinHostPort(host, "1"), false); err != nil || h.Host == "" {
			return fail(fmt.Sprintf("hosts[%d].host", i), "must be a host name or an IP address without a port, not %q", h.Host)
		}
		name := h.Name
		if name == "" {
			name = host
		}
		if strings.ContainsAny(name, " /\t\n") {
			return fail(fmt.Sprintf("hosts[%d].name", i), "must not contain spaces or slashes")
		}
		if name == s.Name {
			return fail(fmt.Sprintf("hosts[%d].name", i), "is the forward upstream's own name")
		}
		if names[name] || hosts[host] {
			return fail(fmt.Sprintf("hosts[%d]", i), "names %q (%s) twice", name, host)
		}
		names[name], hosts[host] = true, true
	}
	if len(f.Resolve) > maxResolve {
		return fail("resolve", "has %d entries, over %d", len(f.Resolve), maxResolve)
	}
	for from, to := range f.Resolve {
		if err := checkHostPort(from, false); err != nil {
			return fail("resolve", "entry %q: must be host:port: %v", from, err)
		}
		if err := checkHostPort(to, false); err != nil {
			return fail("resolve", "entry %q: address %q must be host:port: %v", from, to, err)
		}
	}
	if len(f.UpstreamCA) > 0 {
		if _, err := parseCAs(f.UpstreamCA); err != nil {
			return fail("upstream_ca", "%v", err)
		}
	}
	return nil
}

// parseCAs parses PEM CA certificates; it fails on anything that is not
// a certificate, and on none at all.
func parseCAs(b []byte) ([]*x509.Certificate, error) {
	if len(b) > maxUpstreamCA {
		return nil, fmt.Errorf("is %d bytes, over %d", len(b), maxUpstreamCA)
	}
	var out []*x509.Certificate
	for len(strings.TrimSpace(string(b))) > 0 {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return nil, fmt.Errorf("holds something that is not PEM after %d certificates", len(out))
		}
		if blk.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("holds a PEM %q block; want CERTIFICATE", blk.Type)
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %w", len(out)+1, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("holds no certificate")
	}
	return out, nil
}

// ParseResolve reads one resolve entry, HOST:PORT=ADDR as curl's
// --resolve takes it (with "=" where curl has ":"): requests for
// HOST:PORT dial ADDR, an IP or host name with an optional port (the
// same port when left out). IPv6 addresses go in brackets.
func ParseResolve(s string) (from, to string, err error) {
	if len(s) > 600 {
		return "", "", fmt.Errorf("resolve %.40q...: longer than 600 bytes", s)
	}
	from, to, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("resolve %q: want HOST:PORT=ADDR", s)
	}
	if err := checkHostPort(from, false); err != nil {
		return "", "", fmt.Errorf("resolve %q: %q must be HOST:PORT: %w", s, from, err)
	}
	host, port, _ := net.SplitHostPort(from)
	from = net.JoinHostPort(strings.ToLower(host), port)
	if _, _, err := net.SplitHostPort(to); err != nil {
		to = net.JoinHostPort(strings.Trim(to, "[]"), port)
	}
	if err := checkHostPort(to, false); err != nil {
		return "", "", fmt.Errorf("resolve %q: address %q must be an IP or host, with an optional port: %w", s, to, err)
	}
	return from, to, nil
}
