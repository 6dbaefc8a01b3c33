package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mcpchaos/mcpchaos/api"
)

// forwardFlags are `upstream add`'s flags for a forward upstream.
type forwardFlags struct {
	intercept      bool
	resolve, hosts listFlags
	upstreamCA     string
	caOut          string
}

func (f *forwardFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.intercept, "intercept-tls", false, "forward: terminate CONNECT tunnels with certificates of a CA made for the upstream")
	fs.Var(&f.resolve, "resolve", "forward: HOST:PORT=ADDR, the address dialled for a host (repeatable)")
	fs.Var(&f.hosts, "host", "forward: NAME=HOST, a host named ahead of traffic, for faults to name (repeatable)")
	fs.StringVar(&f.upstreamCA, "upstream-ca", "", "forward: a PEM file of CA certificates that verify intercepted hosts, besides the system's roots")
	fs.StringVar(&f.caOut, "ca-out", "", "forward, with --intercept-tls: write the CA's certificate (never its key) to this file, for the server to trust")
}

// settings fills s from the flags.
func (f *forwardFlags) settings(s *api.ForwardSettings) error {
	s.InterceptTLS, s.Resolve = f.intercept, f.resolve
	for _, h := range f.hosts {
		name, host, ok := strings.Cut(h, "=")
		if !ok || host == "" {
			return fmt.Errorf("--host %q: want NAME=HOST", h)
		}
		s.Hosts = append(s.Hosts, api.ForwardHost{Name: name, Host: host})
	}
	if f.upstreamCA != "" {
		b, err := readBounded(f.upstreamCA, 1<<20)
		if err != nil {
			return fmt.Errorf("--upstream-ca: %w", err)
		}
		s.UpstreamCA = string(b)
	}
	if f.caOut != "" && !f.intercept {
		return errors.New("--ca-out writes the certificate of an intercepting upstream: give --intercept-tls too")
	}
	return nil
}

// writeCA writes the upstream's CA certificate to --ca-out, if given.
func (f *forwardFlags) writeCA(u api.Upstream) error {
	if f.caOut == "" {
		return nil
	}
	if u.CACert == "" {
		return errors.New("the server returned no CA certificate")
	}
	return os.WriteFile(f.caOut, []byte(u.CACert), 0o644)
}
