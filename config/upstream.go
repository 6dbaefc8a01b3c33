package config

import (
	"cmp"
	"errors"
	"net"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/inject"
)

// upstreamFields are the keys of an entry of upstreams; forwardFields
// those of a forward upstream only.
var (
	upstreamFields = []string{"name", "protocol", "listen", "target",
		"intercept_tls", "upstream_ca", "resolve", "hosts", "max_hosts"}
	forwardFields = upstreamFields[4:]
)

// Upstream is one entry of an upstreams list: an [inject.UpstreamSpec]
// that remembers where it was written.
type Upstream struct {
	inject.UpstreamSpec
	fields Mapping
}

// DecodeUpstreams reads a list of upstreams (name, protocol, listen,
// target; for protocol forward, intercept_tls, upstream_ca, resolve,
// hosts and max_hosts, see decodeForward), checks each with [inject.UpstreamSpec.Validate] and refuses
// duplicate names. The specs keep their fields as written; defaults are
// filled by the registry.
func DecodeUpstreams(n Node) ([]Upstream, error) { return DecodeUpstreamsBuiltin(n, "") }

// DecodeUpstreamsBuiltin is [DecodeUpstreams] that also accepts targets
// written prefix+NAME ("builtin:carrier"): an upstream the caller starts
// itself and substitutes before adding the upstream (the scenario
// runner's built-in demo services). An empty prefix accepts none.
func DecodeUpstreamsBuiltin(n Node, prefix string) ([]Upstream, error) {
	ups, _, err := decodeUpstreams(n, prefix, false)
	return ups, err
}

// DecodeUpstreamsHosts is [DecodeUpstreamsBuiltin] for a scenario, whose
// list may also name destinations of the run's forward proxy: an entry
// with a host ({name: ledger, host: ledger.example.test}) is returned
// among hosts, not upstreams.
func DecodeUpstreamsHosts(n Node, prefix string) ([]Upstream, []HostEntry, error) {
	return decodeUpstreams(n, prefix, true)
}

func decodeUpstreams(n Node, prefix string, withHosts bool) ([]Upstream, []HostEntry, error) {
	items, err := n.Items()
	if err != nil {
		return nil, nil, err
	}
	out := make([]Upstream, 0, len(items))
	var hosts []HostEntry
	seen := map[string]bool{}
	for _, it := range items {
		known := upstreamFields
		if withHosts {
			known = append(slices.Clip(upstreamFields), "host")
		}
		m, err := it.Mapping(known...)
		if err != nil {
			return nil, nil, err
		}
		var name string
		if m.Has("host") {
			h, err := decodeHostEntry(it, m)
			if err != nil {
				return nil, nil, err
			}
			name, hosts = h.Name, append(hosts, h)
		} else {
			u, err := decodeUpstream(m, prefix)
			if err != nil {
				return nil, nil, err
			}
			name, out = u.Name, append(out, u)
		}
		if seen[name] {
			return nil, nil, m.Get("name").Errorf(ErrDuplicate, "upstream %q is declared twice", name)
		}
		seen[name] = true
	}
	return out, hosts, nil
}

// decodeUpstream reads one entry of an upstreams list.
func decodeUpstream(m Mapping, prefix string) (Upstream, error) {
	u := Upstream{fields: m}
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &u.Name}, {"protocol", &u.Protocol}, {"listen", &u.Listen}, {"target", &u.Target}} {
		var err error
		if *f.dst, err = m.Get(f.key).String(); err != nil {
			return u, err
		}
	}
	if err := decodeForward(&u, m); err != nil {
		return u, err
	}
	check := u.UpstreamSpec
	if name, ok := strings.CutPrefix(u.Target, prefix); ok && prefix != "" {
		if name == "" {
			return u, m.Get("target").Errorf(ErrInvalid, "%q names no built-in upstream (write %sNAME)", u.Target, prefix)
		}
		check.Target = "127.0.0.1:1" // stands in for the address the caller will start
	}
	if err := check.Validate(); err != nil {
		return u, u.Locate(err)
	}
	return u, nil
}

// Spec returns the upstream as the fault layer takes it.
func (u Upstream) Spec() inject.UpstreamSpec { return u.UpstreamSpec }

// Line is the line the entry starts on.
func (u Upstream) Line() int { return u.fields.node.Line() }

// Locate turns an error about this upstream (from Validate or from the
// registry, e.g. a listen address in use) into an *[Error] at the line
// of the field it concerns. Errors that are already located pass through.
func (u Upstream) Locate(err error) error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	var se *inject.SpecError
	if errors.As(err, &se) {
		// An absent field still has its path and the entry's line.
		return u.fields.Get(se.Field).Errorf(err, "%s", se.Msg)
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "listen" {
		return u.fields.Get("listen").Errorf(err, "%v", err)
	}
	return u.fields.node.Errorf(err, "upstream %q: %v", u.Name, err)
}

// UpstreamNames lists the names rules and matchers may give: each
// upstream's, and the declared destinations of forward upstreams.
func UpstreamNames(upstreams []Upstream) []string {
	var out []string
	for _, u := range upstreams {
		out = append(out, u.Name)
		if u.Forward != nil {
			for _, h := range u.Forward.Hosts {
				out = append(out, cmp.Or(h.Name, strings.ToLower(h.Host)))
			}
		}
	}
	return out
}

// Specs returns the fault layer's view of upstreams.
func Specs(upstreams []Upstream) []inject.UpstreamSpec {
	out := make([]inject.UpstreamSpec, len(upstreams))
	for i, u := range upstreams {
		out[i] = u.UpstreamSpec
	}
	return out
}
