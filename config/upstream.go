package config

import (
	"errors"
	"net"
	"strings"

	"github.com/mcpchaos/mcpchaos/inject"
)

// upstreamFields are the keys of an entry of upstreams.
var upstreamFields = []string{"name", "protocol", "listen", "target"}

// Upstream is one entry of an upstreams list: an [inject.UpstreamSpec]
// that remembers where it was written.
type Upstream struct {
	inject.UpstreamSpec
	fields Mapping
}

// DecodeUpstreams reads a list of upstreams (name, protocol, listen,
// target), checks each with [inject.UpstreamSpec.Validate] and refuses
// duplicate names. The specs keep their fields as written; defaults are
// filled by the registry.
func DecodeUpstreams(n Node) ([]Upstream, error) { return DecodeUpstreamsBuiltin(n, "") }

// DecodeUpstreamsBuiltin is [DecodeUpstreams] that also accepts targets
// written prefix+NAME ("builtin:carrier"): an upstream the caller starts
// itself and substitutes before adding the upstream (the scenario
// runner's built-in demo services). An empty prefix accepts none.
func DecodeUpstreamsBuiltin(n Node, prefix string) ([]Upstream, error) {
	items, err := n.Items()
	if err != nil {
		return nil, err
	}
	out := make([]Upstream, 0, len(items))
	seen := map[string]bool{}
	for _, it := range items {
		m, err := it.Mapping(upstreamFields...)
		if err != nil {
			return nil, err
		}
		u := Upstream{fields: m}
		for _, f := range []struct {
			key string
			dst *string
		}{{"name", &u.Name}, {"protocol", &u.Protocol}, {"listen", &u.Listen}, {"target", &u.Target}} {
			if *f.dst, err = m.Get(f.key).String(); err != nil {
				return nil, err
			}
		}
		check := u.UpstreamSpec
		if name, ok := strings.CutPrefix(u.Target, prefix); ok && prefix != "" {
			if name == "" {
				return nil, m.Get("target").Errorf(ErrInvalid, "%q names no built-in upstream (write %sNAME)", u.Target, prefix)
			}
			check.Target = "127.0.0.1:1" // stands in for the address the caller will start
		}
		if err := check.Validate(); err != nil {
			return nil, u.Locate(err)
		}
		if seen[u.Name] {
			return nil, m.Get("name").Errorf(ErrDuplicate, "upstream %q is declared twice", u.Name)
		}
		seen[u.Name] = true
		out = append(out, u)
	}
	return out, nil
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

// Specs returns the fault layer's view of upstreams.
func Specs(upstreams []Upstream) []inject.UpstreamSpec {
	out := make([]inject.UpstreamSpec, len(upstreams))
	for i, u := range upstreams {
		out[i] = u.UpstreamSpec
	}
	return out
}
