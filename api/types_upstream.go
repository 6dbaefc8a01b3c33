package api

// UpstreamRequest is the body of POST /v1/upstreams and PUT
// /v1/upstreams/{name}.
type UpstreamRequest struct {
	// Name identifies the upstream in faults, events and URLs. In a PUT
	// it may be left out; if given it must match the URL.
	Name string `json:"name,omitempty"`
	// Protocol is "tcp" (default), "http" or "forward".
	Protocol string `json:"protocol,omitempty"`
	// Listen is the proxy's address; empty means a free loopback port
	// (on create) or the current address (on update).
	Listen string `json:"listen,omitempty"`
	// Target is the real upstream: host:port, or http://host:port. A
	// forward upstream has none.
	Target string `json:"target,omitempty"`
	ForwardSettings
}

// ForwardSettings configure a forward upstream (protocol "forward"): an
// HTTP forward proxy whose address a server gets as HTTP_PROXY and
// HTTPS_PROXY, each host it reaches an upstream of its own
// (docs/proxy-env.md).
type ForwardSettings struct {
	// InterceptTLS terminates CONNECT tunnels with certificates of a CA
	// made for this upstream (its certificate is Upstream.CACert).
	InterceptTLS bool `json:"intercept_tls,omitempty"`
	// UpstreamCA is PEM: CA certificates that verify intercepted real
	// upstreams, besides the system's roots.
	UpstreamCA string `json:"upstream_ca,omitempty"`
	// Resolve entries, HOST:PORT=ADDR: the address dialled for a
	// destination.
	Resolve []string `json:"resolve,omitempty"`
	// Hosts name destinations ahead of traffic.
	Hosts []ForwardHost `json:"hosts,omitempty"`
	// MaxHosts bounds the destinations (0: 64).
	MaxHosts int `json:"max_hosts,omitempty"`
}

// ForwardHost names a destination of a forward upstream.
type ForwardHost struct {
	// Name is its upstream name in faults and events; empty: the host.
	Name string `json:"name,omitempty"`
	Host string `json:"host"`
}

// UpstreamHost is a destination of a forward upstream, declared or
// reached: an upstream of its own in faults and events.
type UpstreamHost struct {
	Name     string `json:"name"`
	Host     string `json:"host"`
	Declared bool   `json:"declared"`
	// Ways are how clients reached it: the port, "http" (plain
	// requests), "https" (intercepted tunnels) or "tunnel" (CONNECT, as
	// TCP), the address dialled, and whether a fault refuses it.
	Ways []UpstreamWay `json:"ways"`
}

// UpstreamWay is one way a destination is reached.
type UpstreamWay struct {
	Port     string `json:"port"`
	Way      string `json:"way"`
	Protocol string `json:"protocol"`
	Dial     string `json:"dial"`
	Refusing bool   `json:"refusing"`
}

// UpstreamPatch is the body of PATCH /v1/upstreams/{name}: the fields
// given replace the upstream's; the others stay.
type UpstreamPatch struct {
	Protocol *string `json:"protocol,omitempty"`
	Listen   *string `json:"listen,omitempty"`
	Target   *string `json:"target,omitempty"`
}

// Upstream describes an upstream and its proxy.
type Upstream struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
	// Listen is the address the proxy listens on, with the port
	// resolved; point the MCP server here.
	Listen string `json:"listen"`
	Target string `json:"target"`
	// Enabled is false while the upstream is disabled: its proxy does
	// not listen, so connections are refused as by a dead upstream.
	Enabled bool `json:"enabled"`
	// Refusing reports that a fault (unreachable, mode refuse) has
	// stopped the proxy's listener for now.
	Refusing bool `json:"refusing"`
	// Faults counts the faults that name this upstream.
	Faults int `json:"faults"`
	// Forward is a forward upstream's configuration (UpstreamCA left
	// out), Hosts its destinations, and CACert, when it intercepts TLS,
	// the PEM certificate a server must trust (never the key).
	Forward *ForwardSettings `json:"forward,omitempty"`
	Hosts   []UpstreamHost   `json:"hosts,omitempty"`
	CACert  string           `json:"ca_cert,omitempty"`
	// Warnings are set in the answer to a create or update that worked
	// but deserves a second look, such as a proxy listening on every
	// interface.
	Warnings []string `json:"warnings,omitempty"`
}

// UpstreamList is the body of GET /v1/upstreams.
type UpstreamList struct {
	Upstreams []Upstream `json:"upstreams"`
}

// Deleted is the body of a successful DELETE of an upstream: it also
// removes the upstream's faults.
type Deleted struct {
	Name          string `json:"name"`
	FaultsRemoved int    `json:"faults_removed"`
}

// HaltResult is the body of POST /v1/halt.
type HaltResult struct {
	// FaultsRemoved counts the faults removed.
	FaultsRemoved int `json:"faults_removed"`
	// UpstreamsEnabled names the disabled upstreams halt reopened.
	UpstreamsEnabled []string `json:"upstreams_enabled"`
	// Errors lists upstreams that could not be reopened (their address
	// was taken meanwhile); they stay disabled.
	Errors []string `json:"errors,omitempty"`
}

// Health is the body of GET /healthz.
type Health struct {
	Status    string `json:"status"`
	Upstreams int    `json:"upstreams"`
	Faults    int    `json:"faults"`
	// Runs reports whether POST /v1/runs is enabled (serve --runs), so
	// that the dashboard can say so before anyone tries.
	Runs bool `json:"runs"`
}
