package api

import (
	"fmt"
	"net"
	"net/netip"
	"path"
	"strconv"
	"strings"
)

// Allowlist is the set of targets upstreams may point at, so that faults
// cannot be aimed at something that is not meant to be broken. Build it
// with [ParseAllowlist]; a nil *Allowlist allows every target.
//
// Names are matched as written: nothing is resolved, so a CIDR only
// matches targets given as IP addresses and a host pattern only targets
// given by name.
type Allowlist struct {
	patterns []allowPattern
}

type allowPattern struct {
	src    string
	prefix netip.Prefix // valid for a CIDR or an IP
	host   string       // a host glob, lower case
	port   string       // a port or "*" ("*" too when none was given)
}

// ParseAllowlist parses patterns, each one of:
//
//	10.0.0.0/8          any target whose IP is in the range, any port
//	192.168.1.20        that IP, any port
//	[::1]:5432          that IP and port
//	db.staging          that host name, any port
//	*.staging.internal:*   any matching name, any port ("*" matches any characters)
//	api.staging:8080    that name and port
//
// An empty list (non-nil) allows nothing.
func ParseAllowlist(patterns []string) (*Allowlist, error) {
	a := &Allowlist{}
	for _, src := range patterns {
		src = strings.TrimSpace(src)
		if src == "" {
			continue
		}
		p, err := parseAllowPattern(src)
		if err != nil {
			return nil, err
		}
		a.patterns = append(a.patterns, p)
	}
	return a, nil
}

func parseAllowPattern(src string) (allowPattern, error) {
	p := allowPattern{src: src, port: "*"}
	if pre, err := netip.ParsePrefix(src); err == nil {
		p.prefix = pre.Masked()
		return p, nil
	}
	if ip, err := netip.ParseAddr(src); err == nil {
		p.prefix = netip.PrefixFrom(ip, ip.BitLen())
		return p, nil
	}
	host := src
	if h, port, err := net.SplitHostPort(src); err == nil {
		host, p.port = h, port
		if !validPort(port) {
			return p, fmt.Errorf("allow pattern %q: port %q is not a number or a glob like 80* or *", src, port)
		}
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		p.prefix = netip.PrefixFrom(ip, ip.BitLen())
		return p, nil
	}
	if host == "" || strings.ContainsAny(host, "/ \t") {
		return p, fmt.Errorf("allow pattern %q is not a CIDR, an IP, host or host:port", src)
	}
	p.host = strings.ToLower(host)
	if _, err := path.Match(p.host, "x"); err != nil {
		return p, fmt.Errorf("allow pattern %q: %w", src, err)
	}
	return p, nil
}

// validPort accepts a port number or a glob of digits.
func validPort(port string) bool {
	if !strings.ContainsAny(port, "*?[") {
		n, err := strconv.Atoi(port)
		return err == nil && n >= 0 && n <= 65535
	}
	if strings.Trim(port, "0123456789*?[]-") != "" {
		return false
	}
	_, err := path.Match(port, "1")
	return err == nil
}

// Allows reports whether the target host:port matches a pattern. A nil
// list allows everything.
func (a *Allowlist) Allows(hostport string) bool {
	if a == nil {
		return true
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	ip, ipErr := netip.ParseAddr(host)
	for _, p := range a.patterns {
		if ok, _ := path.Match(p.port, port); !ok {
			continue
		}
		if p.prefix.IsValid() {
			if ipErr == nil && p.prefix.Contains(ip.Unmap()) || ipErr == nil && p.prefix.Contains(ip) {
				return true
			}
			continue
		}
		if ipErr != nil {
			if ok, _ := path.Match(p.host, strings.ToLower(host)); ok {
				return true
			}
		}
	}
	return false
}

// String lists the patterns, for error messages and logs.
func (a *Allowlist) String() string {
	if a == nil {
		return "*"
	}
	srcs := make([]string, len(a.patterns))
	for i, p := range a.patterns {
		srcs[i] = p.src
	}
	return strings.Join(srcs, ", ")
}
