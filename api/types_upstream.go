package api

// UpstreamRequest is the body of POST /v1/upstreams and PUT
// /v1/upstreams/{name}.
type UpstreamRequest struct {
	// Name identifies the upstream in faults, events and URLs. In a PUT
	// it may be left out; if given it must match the URL.
	Name string `json:"name,omitempty"`
	// Protocol is "tcp" (default) or "http".
	Protocol string `json:"protocol,omitempty"`
	// Listen is the proxy's address; empty means a free loopback port
	// (on create) or the current address (on update).
	Listen string `json:"listen,omitempty"`
	// Target is the real upstream: host:port, or http://host:port.
	Target string `json:"target"`
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
