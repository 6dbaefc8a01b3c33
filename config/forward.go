package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpchaos/mcpchaos/inject"
)

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

// HostEntry is an entry of a scenario's upstreams that names a
// destination of the run's forward proxy ({name, host}) rather than an
// upstream of its own.
type HostEntry struct {
	inject.ForwardHost
	node Node
}

// Node is where the entry is written.
func (h HostEntry) Node() Node { return h.node }

func decodeHostEntry(it Node, m Mapping) (HostEntry, error) {
	for _, k := range m.Keys() {
		if k != "name" && k != "host" {
			return HostEntry{}, m.Get(k).Errorf(ErrInvalid,
				"an entry with a host names a destination of the forward proxy: it takes name and host only")
		}
	}
	h := HostEntry{node: it}
	var err error
	if h.Name, err = m.Get("name").String(); err != nil {
		return h, err
	}
	if h.Host, err = m.Get("host").String(); err != nil {
		return h, err
	}
	if h.Name == "" {
		h.Name = strings.ToLower(h.Host)
	}
	// Checked alone here, so that an error names this entry's line.
	check := inject.UpstreamSpec{Name: "check", Protocol: inject.ProtocolForward,
		Forward: &inject.ForwardSpec{Hosts: []inject.ForwardHost{h.ForwardHost}}}
	var se *inject.SpecError
	if err := check.Validate(); errors.As(err, &se) {
		field := "host"
		if strings.HasSuffix(se.Field, ".name") {
			field = "name"
		}
		return h, m.Get(field).Errorf(ErrInvalid, "%s", se.Msg)
	}
	return h, nil
}

// ForwardUpstream is the forward upstream a caller adds for a document
// that asks for one (a scenario's server.proxy_env), written at at: its
// errors are located there (a field of the forward spec, such as
// upstream_ca, at at's field of that name).
func ForwardUpstream(name string, f *inject.ForwardSpec, at Node) (Upstream, error) {
	m, err := at.Mapping()
	if err != nil {
		return Upstream{}, err
	}
	u := Upstream{UpstreamSpec: inject.UpstreamSpec{Name: name, Protocol: inject.ProtocolForward, Forward: f}, fields: m}
	check := u.UpstreamSpec
	if err := check.Validate(); err != nil {
		return u, u.Locate(err)
	}
	return u, nil
}
