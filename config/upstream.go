package config

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"path/filepath"
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
		if err := decodeForward(&u, m); err != nil {
			return nil, err
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

// decodeForward reads the fields of a forward upstream (protocol
// forward) into u.Forward, and refuses them on any other:
//
//	intercept_tls: true
//	upstream_ca: certs/staging-ca.pem   # or a list; relative to the file
//	resolve: ["ledger.example.test:443=127.0.0.1:8443"]
//	hosts: [{name: ledger, host: ledger.example.test}]
//	max_hosts: 64
func decodeForward(u *Upstream, m Mapping) error {
	if u.Protocol != inject.ProtocolForward {
		for _, k := range forwardFields {
			if m.Has(k) {
				return m.Get(k).Errorf(ErrInvalid, "applies to a forward upstream only (protocol: forward)")
			}
		}
		return nil
	}
	f := &inject.ForwardSpec{}
	var err error
	if f.InterceptTLS, err = m.Get("intercept_tls").Bool(false); err != nil {
		return err
	}
	if f.MaxHosts, err = m.Get("max_hosts").Int(); err != nil {
		return err
	}
	cas, err := m.Get("upstream_ca").Strings()
	if err != nil {
		return err
	}
	for _, p := range cas {
		b, err := ReadCAFile(RelativeTo(m.Node(), p))
		if err != nil {
			return m.Get("upstream_ca").Errorf(ErrInvalid, "%v", err)
		}
		f.UpstreamCA = append(f.UpstreamCA, b...)
	}
	res, err := m.Get("resolve").Strings()
	if err != nil {
		return err
	}
	if f.Resolve, err = ResolveMap(res); err != nil {
		return m.Get("resolve").Errorf(ErrInvalid, "%v", err)
	}
	if m.Has("hosts") {
		items, err := m.Get("hosts").Items()
		if err != nil {
			return err
		}
		for _, it := range items {
			hm, err := it.Mapping("name", "host")
			if err != nil {
				return err
			}
			var h inject.ForwardHost
			if h.Name, err = hm.Get("name").String(); err != nil {
				return err
			}
			if h.Host, err = hm.Get("host").String(); err != nil {
				return err
			}
			f.Hosts = append(f.Hosts, h)
		}
	}
	u.Forward = f
	return nil
}

// ResolveMap reads resolve entries (HOST:PORT=ADDR, see
// [inject.ParseResolve]) into a map, refusing a destination given twice.
func ResolveMap(entries []string) (map[string]string, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		from, to, err := inject.ParseResolve(e)
		if err != nil {
			return nil, err
		}
		if _, ok := out[from]; ok {
			return nil, fmt.Errorf("resolve %s is given twice", from)
		}
		out[from] = to
	}
	return out, nil
}

// RelativeTo resolves p against the directory of the document n belongs
// to, as a path written in a file means.
func RelativeTo(n Node, p string) string {
	if filepath.IsAbs(p) || n.File() == "" {
		return p
	}
	return filepath.Join(filepath.Dir(n.File()), p)
}

// ReadCAFile reads a PEM file of CA certificates, bounded as a config
// file is.
func ReadCAFile(path string) ([]byte, error) {
	b, err := readFile(path)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%s %s", path, ce.Msg)
		}
		return nil, err
	}
	return b, nil
}
