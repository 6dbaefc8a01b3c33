package config

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// MaxFileSize bounds what [Load] reads: a config file or a scenario is a
// few KiB; a huge one is a mistake (the wrong path), not a config. It also
// bounds the YAML lexer's memory, which holds every token of a document
// before the depth check sees them (about 280 bytes a token): 1 MiB of
// one-byte tokens costs about 300 MB for a moment, 4 MiB cost over 1 GB.
const MaxFileSize = 1 << 20

// fileFields are the top-level keys of a config file.
var fileFields = []string{"upstreams", "rules", "seed", "default_ttl", "max_ttl"}

// File is a config file: the upstreams to proxy and the rules to apply.
type File struct {
	// Name is the file's name as given to [Load] or [Parse].
	Name      string
	Upstreams []Upstream
	Rules     []Rule
	// Seed feeds probability decisions; nil lets the caller choose.
	Seed *uint64
	// DefaultTTL applies to rules without a ttl: 0 keeps the rule
	// table's default (15m), negative (written "never") means rules live
	// until removed.
	DefaultTTL time.Duration
	// MaxTTL, when positive, caps every rule's ttl.
	MaxTTL time.Duration
}

// Load reads and parses the file at path.
func Load(path string) (*File, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// readFile reads at most MaxFileSize bytes; errors are located at the
// file (line 0).
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error(), Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error(), Err: err}
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("is larger than %d bytes", MaxFileSize), Err: ErrInvalid}
	}
	return data, nil
}

// ReadFile reads a YAML file the way [Load] does (size-bounded, errors as
// *[Error]) and returns its root node, for documents other than config
// files (scenarios).
func ReadFile(path string) (Node, error) {
	data, err := readFile(path)
	if err != nil {
		return Node{}, err
	}
	return Document(path, data)
}

// Parse parses data, the content of the file called name.
func Parse(name string, data []byte) (*File, error) {
	root, err := Document(name, data)
	if err != nil {
		return nil, err
	}
	m, err := root.Mapping(fileFields...)
	if err != nil {
		return nil, err
	}
	f := &File{Name: name}
	if f.Upstreams, err = DecodeUpstreams(m.Get("upstreams")); err != nil {
		return nil, err
	}
	if f.Rules, err = DecodeRules(m.Get("rules"), f.Upstreams); err != nil {
		return nil, err
	}
	if s := m.Get("seed"); s.Present() {
		v, err := s.Uint64()
		if err != nil {
			return nil, err
		}
		f.Seed = &v
	}
	if f.DefaultTTL, err = DecodeTTL(m.Get("default_ttl")); err != nil {
		return nil, err
	}
	if f.MaxTTL, err = m.Get("max_ttl").Duration(); err != nil {
		return nil, err
	}
	return f, nil
}

// DecodeTTL reads a default TTL: a duration, or "never" (returned as -1).
func DecodeTTL(n Node) (time.Duration, error) {
	if s, _ := n.String(); s == "never" {
		return -1, nil
	}
	return n.Duration()
}

// RuleSet returns the file's rules as the fault layer takes them.
func (f *File) RuleSet() []rules.Rule { return RuleSet(f.Rules) }

// Specs returns the file's upstreams as the fault layer takes them.
func (f *File) Specs() []inject.UpstreamSpec { return Specs(f.Upstreams) }

// Apply adds the file's upstreams to r, then replaces r's rules with the
// file's. Errors are located in the file (a listen address in use is
// reported at its listen line). On error, upstreams added so far stay:
// the caller closes the registry.
func (f *File) Apply(r *inject.Registry) error {
	for _, u := range f.Upstreams {
		if _, err := r.AddUpstream(u.Spec()); err != nil {
			return u.Locate(err)
		}
	}
	if err := r.ReplaceRules(f.RuleSet()); err != nil {
		return LocateRuleError(f.Rules, err)
	}
	return nil
}
