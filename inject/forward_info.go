package inject

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// HostInfo describes one destination of a forward upstream: an upstream
// of its own in rules and events, named Name, reached through the
// forward upstream (the event's via).
type HostInfo struct {
	Name, Host string
	// Declared: the forward upstream's spec names the host (see
	// [ForwardSpec].Hosts).
	Declared bool
	// Ways are how its clients reached it so far.
	Ways []WayInfo
}

// WayInfo is one way a destination is reached: its own proxy.
type WayInfo struct {
	// Port is the destination's port, as clients name it.
	Port string
	// Way is "http" (plain requests), "https" (intercepted tunnels) or
	// "tunnel" (CONNECT tunnels, as TCP); Protocol the proxy's, "http"
	// or "tcp".
	Way, Protocol string
	// Dial is the address dialled (what resolve says, or host:port).
	Dial string
	// Refusing reports that a refuse fault refuses the destination.
	Refusing bool
}

// hostsInfo lists the destinations, declared ones first, then by name.
func (f *forwardProxy) hostsInfo() []HostInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	byHost := map[string]*HostInfo{}
	var out []*HostInfo
	host := func(h string) *HostInfo {
		if hi := byHost[h]; hi != nil {
			return hi
		}
		_, declared := f.names[h]
		hi := &HostInfo{Name: cmp.Or(f.names[h], h), Host: h, Declared: declared}
		byHost[h] = hi
		out = append(out, hi)
		return hi
	}
	for _, h := range f.spec.Hosts {
		host(strings.ToLower(h.Host))
	}
	for k, w := range f.ways {
		hi := host(k.host)
		proto := ProtocolHTTP
		if k.kind == wayTunnel {
			proto = ProtocolTCP
		}
		hi.Ways = append(hi.Ways, WayInfo{Port: k.port, Way: k.kind.String(), Protocol: proto,
			Dial: w.env.dialAddr, Refusing: w.g.refusing()})
	}
	res := make([]HostInfo, 0, len(out))
	for _, hi := range out {
		slices.SortFunc(hi.Ways, func(a, b WayInfo) int {
			return strings.Compare(a.Port+"/"+a.Way, b.Port+"/"+b.Way)
		})
		res = append(res, *hi)
	}
	slices.SortStableFunc(res, func(a, b HostInfo) int {
		if a.Declared != b.Declared {
			if a.Declared {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return res
}

// forwardHostLocked reports whether name is a destination a forward
// upstream declares or has reached; r.mu is held.
func (r *Registry) forwardHostLocked(name string) bool {
	for _, e := range r.ups {
		if f, ok := e.p.(*forwardProxy); ok && f.hasName(name) {
			return true
		}
	}
	return false
}

// hasName reports whether a destination of f is called name.
func (f *forwardProxy) hasName(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for h, n := range f.names {
		if n == name || h == name {
			return true
		}
	}
	for _, w := range f.ways {
		if w.name == name {
			return true
		}
	}
	return false
}

// checkNamesLocked refuses an upstream whose name is a declared
// destination of a forward upstream, or a forward upstream declaring a
// destination whose name an upstream has: a rule naming it would apply
// to both. r.mu is held.
func (r *Registry) checkNamesLocked(spec UpstreamSpec) error {
	if r.forwardHostLocked(spec.Name) {
		return &SpecError{Upstream: spec.Name, Field: "name", Msg: "is a forward upstream's destination"}
	}
	if spec.Forward == nil {
		return nil
	}
	for i, h := range spec.Forward.Hosts {
		name := cmp.Or(h.Name, strings.ToLower(h.Host))
		if _, ok := r.ups[name]; ok || r.forwardHostLocked(name) {
			return &SpecError{Upstream: spec.Name, Field: fmt.Sprintf("hosts[%d].name", i),
				Msg: fmt.Sprintf("%q is already an upstream's name", name)}
		}
	}
	return nil
}

// ForwardCA returns the PEM certificate of the CA a forward upstream
// signs intercepted tunnels' certificates with, for the server under test
// to trust. Its key stays in the proxy.
func (r *Registry) ForwardCA(name string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.ups[name]
	if !ok {
		return nil, fmt.Errorf("upstream %q: %w", name, ErrUnknownUpstream)
	}
	f, ok := e.p.(*forwardProxy)
	if !ok || f.ca == nil {
		return nil, fmt.Errorf("upstream %q does not intercept TLS", name)
	}
	return slices.Clone(f.ca.certPEM), nil
}
