package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/mcpchaos/mcpchaos/inject"
)

// proxyFlags are scan's flags for the proxy environment
// (docs/proxy-env.md).
type proxyFlags struct {
	env, intercept bool
	resolve        listFlags
	upstreamCA     listFlags
	fs             *flag.FlagSet // set by register: which flags the command line gave
}

// given reports whether the command line gave the flag (false for flags
// never registered).
func (f *proxyFlags) given(name string) bool { return f.fs != nil && flagSet(f.fs, name) }

func (f *proxyFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.env, "proxy-env", true, "run a forward proxy and hand it to the server as HTTP_PROXY and HTTPS_PROXY: every host it calls "+
		"becomes an upstream (\"proxy\"); the faults target it when no --upstream is given (a --url server: off)")
	fs.BoolVar(&f.intercept, "intercept-tls", false, "see inside the server's HTTPS: a CA made for the run signs the hosts' certificates, "+
		"and the server is told to trust it (SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, NODE_EXTRA_CA_CERTS)")
	fs.Var(&f.resolve, "resolve", "HOST:PORT=ADDR: dial ADDR for HOST:PORT, like curl's --resolve (Go never proxies loopback: "+
		"call a host name and map it here); repeatable")
	fs.Var(&f.upstreamCA, "upstream-ca", "FILE: PEM CA certificates that verify the real hosts of intercepted HTTPS, "+
		"besides the system's roots; repeatable")
	f.fs = fs
}

// scanProxy is the proxy environment of a scan.
type scanProxy struct {
	intercept bool
	resolve   []string
	cas       []string // absolute paths, so a saved scenario replays anywhere
	// faults: the fault matrix targets the forward upstream too.
	faults bool
}

// plan resolves the flags: the proxy environment is on unless turned off
// or the server is reached by url (someone else started it); its faults
// apply when no --upstream is given, or when a proxy flag says the
// server's hosts are the point.
func (f *proxyFlags) plan(byURL, upstreams bool) (*scanProxy, error) {
	explicit := f.given("intercept-tls") || f.given("resolve") || f.given("upstream-ca")
	switch {
	case byURL && (explicit || f.given("proxy-env") && f.env):
		return nil, errors.New("--proxy-env, --intercept-tls, --resolve and --upstream-ca need a server scan starts (a command after --): " +
			"a --url server has its own environment")
	case byURL || !f.env:
		if explicit {
			return nil, errors.New("--intercept-tls, --resolve and --upstream-ca need the proxy environment (drop --proxy-env=false)")
		}
		return nil, nil
	}
	p := &scanProxy{intercept: f.intercept, resolve: f.resolve, faults: !upstreams || explicit}
	for _, e := range f.resolve {
		if _, _, err := inject.ParseResolve(e); err != nil {
			return nil, fmt.Errorf("--resolve: %w", err)
		}
	}
	for _, c := range f.upstreamCA {
		abs, err := filepath.Abs(c)
		if err != nil {
			return nil, fmt.Errorf("--upstream-ca %s: %w", c, err)
		}
		p.cas = append(p.cas, abs)
	}
	if len(p.cas) > 0 && !p.intercept {
		return nil, errors.New("--upstream-ca verifies intercepted hosts: give --intercept-tls too")
	}
	return p, nil
}

// head writes the server's proxy fields; nothing for a nil p.
func (p *scanProxy) head(b *bytes.Buffer) {
	if p == nil {
		return
	}
	b.WriteString("  proxy_env: true\n")
	if p.intercept {
		b.WriteString("  intercept_tls: true\n")
	}
	if len(p.cas) > 0 {
		fmt.Fprintf(b, "  upstream_ca: %s\n", yv(p.cas))
	}
	if len(p.resolve) > 0 {
		fmt.Fprintf(b, "  resolve: %s\n", yv(p.resolve))
	}
}
