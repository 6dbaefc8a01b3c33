package api

import (
	"context"
	"net/http"
	"net/url"
)

// Upstreams lists the upstreams.
func (c *Client) Upstreams(ctx context.Context) ([]Upstream, error) {
	var l UpstreamList
	_, err := c.do(ctx, http.MethodGet, "/v1/upstreams", nil, &l)
	return l.Upstreams, err
}

// Upstream returns one upstream.
func (c *Client) Upstream(ctx context.Context, name string) (Upstream, error) {
	var u Upstream
	_, err := c.do(ctx, http.MethodGet, urlPath("v1", "upstreams", name), nil, &u)
	return u, err
}

// AddUpstream creates an upstream.
func (c *Client) AddUpstream(ctx context.Context, req UpstreamRequest) (Upstream, error) {
	var u Upstream
	_, err := c.do(ctx, http.MethodPost, "/v1/upstreams", req, &u)
	return u, err
}

// UpdateUpstream replaces an upstream's spec (its proxy restarts).
func (c *Client) UpdateUpstream(ctx context.Context, name string, req UpstreamRequest) (Upstream, error) {
	var u Upstream
	_, err := c.do(ctx, http.MethodPut, urlPath("v1", "upstreams", name), req, &u)
	return u, err
}

// PatchUpstream changes some fields of an upstream's spec.
func (c *Client) PatchUpstream(ctx context.Context, name string, p UpstreamPatch) (Upstream, error) {
	var u Upstream
	_, err := c.do(ctx, http.MethodPatch, urlPath("v1", "upstreams", name), p, &u)
	return u, err
}

// RemoveUpstream removes an upstream and its faults.
func (c *Client) RemoveUpstream(ctx context.Context, name string) (Deleted, error) {
	var d Deleted
	_, err := c.do(ctx, http.MethodDelete, urlPath("v1", "upstreams", name), nil, &d)
	return d, err
}

// EnableUpstream starts a disabled upstream's proxy again.
func (c *Client) EnableUpstream(ctx context.Context, name string) (Upstream, error) {
	var u Upstream
	_, err := c.do(ctx, http.MethodPost, urlPath("v1", "upstreams", name, "enable"), nil, &u)
	return u, err
}

// DisableUpstream stops an upstream's proxy (connections are refused).
func (c *Client) DisableUpstream(ctx context.Context, name string) (Upstream, error) {
	var u Upstream
	_, err := c.do(ctx, http.MethodPost, urlPath("v1", "upstreams", name, "disable"), nil, &u)
	return u, err
}

// Faults lists the faults; upstream, when set, keeps that upstream's.
func (c *Client) Faults(ctx context.Context, upstream string) ([]Fault, error) {
	rel := "/v1/faults"
	if upstream != "" {
		rel += "?upstream=" + url.QueryEscape(upstream)
	}
	var l FaultList
	_, err := c.do(ctx, http.MethodGet, rel, nil, &l)
	return l.Faults, err
}

// Fault returns one fault.
func (c *Client) Fault(ctx context.Context, name string) (Fault, error) {
	var f Fault
	_, err := c.do(ctx, http.MethodGet, urlPath("v1", "faults", name), nil, &f)
	return f, err
}

// AddFault creates a fault; a taken name is an error (409).
func (c *Client) AddFault(ctx context.Context, req FaultRequest) (Fault, error) {
	var f Fault
	_, err := c.do(ctx, http.MethodPost, "/v1/faults", req, &f)
	return f, err
}

// PutFault creates or replaces the fault req.Name, and reports whether it
// was created.
func (c *Client) PutFault(ctx context.Context, req FaultRequest) (Fault, bool, error) {
	var f Fault
	status, err := c.do(ctx, http.MethodPut, urlPath("v1", "faults", req.Name), req, &f)
	return f, status == http.StatusCreated, err
}

// PatchFault changes some fields of a fault.
func (c *Client) PatchFault(ctx context.Context, name string, p FaultPatch) (Fault, error) {
	var f Fault
	_, err := c.do(ctx, http.MethodPatch, urlPath("v1", "faults", name), p, &f)
	return f, err
}

// ExtendFault makes a fault expire ttl from now ("10m"); its hits stay.
func (c *Client) ExtendFault(ctx context.Context, name, ttl string) (Fault, error) {
	var f Fault
	_, err := c.do(ctx, http.MethodPost, urlPath("v1", "faults", name, "extend"), FaultExtend{TTL: ttl}, &f)
	return f, err
}

// ResetFault zeroes a fault's hit count; its expiry stays.
func (c *Client) ResetFault(ctx context.Context, name string) (Fault, error) {
	var f Fault
	_, err := c.do(ctx, http.MethodPost, urlPath("v1", "faults", name, "reset"), nil, &f)
	return f, err
}

// RemoveFault removes a fault.
func (c *Client) RemoveFault(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodDelete, urlPath("v1", "faults", name), nil, nil)
	return err
}

// ReplaceFaults replaces every fault with set.
func (c *Client) ReplaceFaults(ctx context.Context, set []FaultRequest) ([]Fault, error) {
	var l FaultList
	if set == nil {
		set = []FaultRequest{}
	}
	_, err := c.do(ctx, http.MethodPut, "/v1/faults", FaultSet{Faults: set}, &l)
	return l.Faults, err
}
