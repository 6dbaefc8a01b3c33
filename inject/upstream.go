package inject

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Protocols an upstream can speak.
const (
	ProtocolTCP  = "tcp"
	ProtocolHTTP = "http"
)

// speaksHTTP reports whether protocol's target is an HTTP server.
func speaksHTTP(protocol string) bool { return protocol == ProtocolHTTP || protocol == ProtocolMCP }

// UpstreamSpec declares an upstream and its proxy.
type UpstreamSpec struct {
	// Name identifies the upstream in rules, events and the API.
	Name string
	// Protocol is "tcp", "http" or "mcp" (an MCP front, in front of a
	// Streamable HTTP MCP server; see [ProtocolMCP]).
	Protocol string
	// Listen is the proxy's address; empty means "127.0.0.1:0" (a free
	// loopback port).
	Listen string
	// Target is the real upstream: "host:port" for tcp, a URL
	// ("http://host:port") or "host:port" for http.
	Target string
}

// Validate checks the spec and fills defaults. Every path that adds an
// upstream (the API, a config file, a scenario) reaches it, so an address
// is checked the same way everywhere: the error names the field.
func (s *UpstreamSpec) Validate() error {
	if s.Name == "" {
		return &SpecError{Field: "name", Msg: "is required"}
	}
	if strings.ContainsAny(s.Name, " /\t\n") {
		return &SpecError{Upstream: s.Name, Field: "name", Msg: "must not contain spaces or slashes"}
	}
	if s.Protocol == "" {
		s.Protocol = ProtocolTCP
	}
	if s.Protocol != ProtocolTCP && !speaksHTTP(s.Protocol) {
		return &SpecError{Upstream: s.Name, Field: "protocol", Msg: fmt.Sprintf("must be tcp or http (or mcp, an MCP front), not %q", s.Protocol)}
	}
	if s.Listen == "" {
		s.Listen = "127.0.0.1:0"
	}
	if err := checkHostPort(s.Listen, true); err != nil {
		return &SpecError{Upstream: s.Name, Field: "listen", Msg: fmt.Sprintf("must be host:port, not %q: %v", s.Listen, err)}
	}
	if s.Target == "" {
		return &SpecError{Upstream: s.Name, Field: "target", Msg: "is required"}
	}
	if _, err := s.TargetAddr(); err != nil {
		return &SpecError{Upstream: s.Name, Field: "target", Msg: err.Error()}
	}
	return nil
}

// TargetAddr returns the target's host:port. A tcp target is host:port
// exactly; an http one is that or an http URL with a host and nothing but
// an optional "/" after it (the proxy forwards each request's own path).
func (s *UpstreamSpec) TargetAddr() (string, error) {
	t := s.Target
	if speaksHTTP(s.Protocol) && strings.Contains(t, "://") {
		u, err := url.Parse(t)
		if err != nil {
			return "", fmt.Errorf("is not a URL: %q", t)
		}
		switch {
		case u.Scheme != "http":
			return "", fmt.Errorf("scheme must be http, not %q (in %q)", u.Scheme, t)
		case u.User != nil:
			return "", fmt.Errorf("must not carry user info (in %q)", t)
		case u.Path != "" && u.Path != "/", u.RawQuery != "", u.Fragment != "":
			return "", fmt.Errorf("must be http://host:port with no path, query or fragment, not %q", t)
		}
		t = u.Host
		if u.Port() == "" {
			t = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	if err := checkHostPort(t, false); err != nil {
		want := "host:port"
		if speaksHTTP(s.Protocol) {
			want = "host:port or http://host:port"
		}
		return "", fmt.Errorf("must be %s, not %q: %w", want, s.Target, err)
	}
	return t, nil
}

// checkHostPort checks an address as net.Dial and net.Listen take it,
// stricter than net.SplitHostPort: the host is an IP or a well-formed
// host name, the port a number (1-65535; 0 too when listen is set, for
// "any free port"). An empty host is allowed only for listen (every
// interface).
func checkHostPort(addr string, listen bool) error {
	if strings.ContainsFunc(addr, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return errors.New("contains a space or control character")
	}
	host, port, err := net.SplitHostPort(addr)
	if ae := (*net.AddrError)(nil); errors.As(err, &ae) {
		return errors.New(ae.Err)
	} else if err != nil {
		return err
	}
	n, err := strconv.Atoi(port)
	lo := 1
	if listen {
		lo = 0
	}
	if err != nil || port[0] == '+' || port[0] == '-' || n < lo || n > 65535 {
		return fmt.Errorf("port %q is not a number from %d to 65535", port, lo)
	}
	switch {
	case host == "" && listen:
		return nil
	case host == "":
		return errors.New("has no host")
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	if !hostName(host) {
		return fmt.Errorf("host %q is neither an IP address nor a host name", host)
	}
	return nil
}

// hostName reports whether h is a syntactically valid DNS host name
// (RFC 1123 labels) whose last label is not all digits, so that an
// invalid dotted quad such as 999.1.1.1 is not taken for a name.
func hostName(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	return strings.Trim(last, "0123456789") != ""
}

// ListensOnAllInterfaces reports whether the listen address (as
// Validate accepts it) is reachable from every interface: an empty
// host, 0.0.0.0 or ::. Such a proxy lets any machine that can reach this
// one use the upstream through it.
func ListensOnAllInterfaces(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsUnspecified()
}

// SpecError reports an invalid field of an [UpstreamSpec].
type SpecError struct {
	Upstream, Field, Msg string
}

func (e *SpecError) Error() string {
	if e.Upstream == "" {
		return fmt.Sprintf("upstream: %s %s", e.Field, e.Msg)
	}
	return fmt.Sprintf("upstream %q: %s %s", e.Upstream, e.Field, e.Msg)
}
