package inject

import (
	"fmt"
	"net"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/rules"
)

// ProtocolMCP is an MCP front: a proxy in front of a Streamable HTTP MCP
// server that passes its traffic through unchanged and records every
// tool call (package front). The registry opens its listener; the front
// itself is another package's, given to [Registry.UseFront].
const ProtocolMCP = "mcp"

// Front is the proxy of an upstream whose protocol another package
// implements.
type Front interface {
	// Changed is called after every rule change that may concern the
	// front, before the call that made it returns.
	Changed(s *rules.Set)
	// Close stops serving, ends every connection and waits for every
	// goroutine the front started.
	Close() error
}

// FrontEnv is what the registry hands a front it starts.
type FrontEnv struct {
	// Spec is the upstream's, validated.
	Spec UpstreamSpec
	// Registry is the front's registry: its rule table, its bus, and
	// [Registry.OpenCall] to attribute upstream traffic to calls.
	Registry *Registry
	Log      zerolog.Logger
}

// NewFront starts a front serving ln, which it owns from then on (it
// closes ln when it fails).
type NewFront func(ln net.Listener, env FrontEnv) (Front, error)

// UseFront makes the registry start upstreams of protocol with newFront.
// Without it, adding an upstream of a protocol the registry does not
// implement itself fails.
func (r *Registry) UseFront(protocol string, newFront NewFront) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fronts == nil {
		r.fronts = map[string]NewFront{}
	}
	r.fronts[protocol] = newFront
}

// startFrontLocked starts the front of spec; r.mu is held.
func (r *Registry) startFrontLocked(spec UpstreamSpec) (proxy, error) {
	nf, ok := r.fronts[spec.Protocol]
	if !ok {
		return nil, fmt.Errorf("protocol %s needs an MCP front, which this registry was not given (serve has one)", spec.Protocol)
	}
	ln, err := net.Listen("tcp", spec.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", spec.Listen, err)
	}
	addr := ln.Addr()
	f, err := nf(ln, FrontEnv{Spec: spec, Registry: r, Log: r.log.With().Str("upstream", spec.Name).Logger()})
	if err != nil {
		return nil, err
	}
	return &frontProxy{f: f, a: addr}, nil
}

// frontProxy adapts a [Front] to the registry's proxy.
type frontProxy struct {
	f Front
	a net.Addr
}

func (p *frontProxy) addr() net.Addr       { return p.a }
func (p *frontProxy) changed(s *rules.Set) { p.f.Changed(s) }
func (p *frontProxy) close() error         { return p.f.Close() }
