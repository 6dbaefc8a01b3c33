package inject

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Protocols an upstream can speak.
const (
	ProtocolTCP  = "tcp"
	ProtocolHTTP = "http"
)

// UpstreamSpec declares an upstream and its proxy.
type UpstreamSpec struct {
	// Name identifies the upstream in rules, events and the API.
	Name string
	// Protocol is "tcp" or "http".
	Protocol string
	// Listen is the proxy's address; empty means "127.0.0.1:0" (a free
	// loopback port).
	Listen string
	// Target is the real upstream: "host:port" for tcp, a URL
	// ("http://host:port") or "host:port" for http.
	Target string
}

// Validate checks the spec and fills defaults.
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
	if s.Protocol != ProtocolTCP && s.Protocol != ProtocolHTTP {
		return &SpecError{Upstream: s.Name, Field: "protocol", Msg: fmt.Sprintf("must be tcp or http, not %q", s.Protocol)}
	}
	if s.Listen == "" {
		s.Listen = "127.0.0.1:0"
	}
	if _, _, err := net.SplitHostPort(s.Listen); err != nil {
		return &SpecError{Upstream: s.Name, Field: "listen", Msg: fmt.Sprintf("must be host:port, not %q", s.Listen)}
	}
	if s.Target == "" {
		return &SpecError{Upstream: s.Name, Field: "target", Msg: "is required"}
	}
	if _, err := s.TargetAddr(); err != nil {
		return &SpecError{Upstream: s.Name, Field: "target", Msg: err.Error()}
	}
	return nil
}

// TargetAddr returns the target's host:port.
func (s *UpstreamSpec) TargetAddr() (string, error) {
	t := s.Target
	if strings.Contains(t, "://") {
		u, err := url.Parse(t)
		if err != nil {
			return "", fmt.Errorf("is not a URL: %q", t)
		}
		if u.Scheme != "http" {
			return "", fmt.Errorf("scheme must be http, not %q", u.Scheme)
		}
		t = u.Host
		if u.Port() == "" {
			t = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	if _, _, err := net.SplitHostPort(t); err != nil {
		return "", fmt.Errorf("must be host:port or http://host:port, not %q", s.Target)
	}
	return t, nil
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
