package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// UpstreamTimeout bounds every carrier request, dial to last body byte. It
// is well inside any sensible tools/call deadline, so a hung carrier
// becomes a verdict the server reports instead of a call the client
// abandons.
const UpstreamTimeout = 1500 * time.Millisecond

// maxReplyBytes bounds how much of a carrier reply is read.
const maxReplyBytes = 1 << 20

// carrierClient calls the carrier API and classifies what went wrong, so
// each variant can decide what to say about it.
type carrierClient struct {
	base string
	http *http.Client
}

func newCarrierClient(baseURL string) *carrierClient {
	tr := &http.Transport{
		// Never an environment proxy: the fault proxy, if any, is the base
		// URL itself.
		Proxy:       nil,
		DialContext: (&net.Dialer{Timeout: UpstreamTimeout}).DialContext,
		// One connection per request keeps the demo deterministic: a fault
		// that breaks a connection breaks exactly one request, and the
		// transport never silently replays a request on a stale pooled
		// connection (it does so for requests carrying Idempotency-Key).
		// The per-request context deadline (in do) bounds the rest; no
		// separate header timeout, so a hang always reads the same way.
		DisableKeepAlives: true,
	}
	return &carrierClient{
		base: strings.TrimRight(baseURL, "/"),
		http: &http.Client{Transport: tr},
	}
}

// failKind says what is known about a failed carrier request, which is
// what decides whether a write may have happened.
type failKind int

const (
	// failUnreachable: no connection was made, so nothing was sent.
	failUnreachable failKind = iota + 1
	// failTimeout: connected, but no full answer before the deadline; the
	// carrier may have acted on the request.
	failTimeout
	// failDropped: the connection broke before a full answer; the carrier
	// may have acted on the request.
	failDropped
	// failStatus: the carrier answered with a non-2xx status.
	failStatus
	// failBadReply: the carrier answered 2xx (so it acted) but the body
	// was cut or unreadable.
	failBadReply
	// failCanceled: the caller (the MCP request) went away.
	failCanceled
)

// upstreamError is a failed carrier request. Error returns the raw Go
// error text, URL and all: only the careless variant shows it.
type upstreamError struct {
	kind failKind
	// cause is a short, leak-free description ("connection refused").
	cause string
	// status and retryAfter are set for failStatus.
	status     int
	retryAfter time.Duration
	err        error
}

func (e *upstreamError) Error() string { return e.err.Error() }
func (e *upstreamError) Unwrap() error { return e.err }

// do sends one request and decodes a 2xx JSON reply into out. It returns
// the status of a 2xx reply, or an *upstreamError.
func (c *carrierClient) do(ctx context.Context, method, path string, body any, header http.Header, out any) (int, error) {
	u := c.base + path
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, fmt.Errorf("encoding %s body: %w", path, err)
		}
		rd = bytes.NewReader(b)
	}
	rctx, cancel := context.WithTimeout(ctx, UpstreamTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, u, rd)
	if err != nil {
		return 0, &upstreamError{kind: failUnreachable, cause: "invalid carrier address", err: err}
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, classify(ctx, err)
	}
	defer resp.Body.Close()
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return 0, &upstreamError{
			kind:       failStatus,
			cause:      fmt.Sprintf("HTTP %d", resp.StatusCode),
			status:     resp.StatusCode,
			retryAfter: parseRetryAfter(resp.Header.Get("Retry-After")),
			err:        fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, strings.TrimSpace(string(data))),
		}
	}
	if rerr != nil {
		if ctx.Err() != nil {
			return 0, &upstreamError{kind: failCanceled, cause: "canceled", err: ctx.Err()}
		}
		return 0, &upstreamError{kind: failBadReply, cause: "reply cut off", status: resp.StatusCode,
			err: fmt.Errorf("reading response from %s %s: %w", method, u, rerr)}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return 0, &upstreamError{kind: failBadReply, cause: "reply unreadable", status: resp.StatusCode,
				err: fmt.Errorf("decoding response from %s %s: %w", method, u, err)}
		}
	}
	return resp.StatusCode, nil
}

// classify turns a transport error into what is known about the request.
func classify(ctx context.Context, err error) *upstreamError {
	if ctx.Err() != nil {
		return &upstreamError{kind: failCanceled, cause: "canceled", err: err}
	}
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &upstreamError{kind: failUnreachable, cause: "connection refused", err: err}
	case errors.As(err, &dns):
		return &upstreamError{kind: failUnreachable, cause: "address not found", err: err}
	case errors.As(err, &op) && op.Op == "dial":
		return &upstreamError{kind: failUnreachable, cause: "could not connect", err: err}
	case isTimeout(err):
		return &upstreamError{kind: failTimeout, cause: "no answer in time", err: err}
	default:
		return &upstreamError{kind: failDropped, cause: "connection dropped", err: err}
	}
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var ue *url.Error
	return errors.As(err, &ue) && ue.Timeout()
}

// parseRetryAfter reads a delay-seconds Retry-After; dates and garbage
// give 0 (unknown).
func parseRetryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// asUpstream returns err as an *upstreamError, wrapping anything else
// (which can only be a local bug) as a dropped request.
func asUpstream(err error) *upstreamError {
	var ue *upstreamError
	if errors.As(err, &ue) {
		return ue
	}
	return &upstreamError{kind: failDropped, cause: "internal error", err: err}
}

// createShipment posts a shipment. key, if not empty, is sent as the
// Idempotency-Key header. created is false when the carrier returned an
// earlier shipment for the same key.
func (c *carrierClient) createShipment(ctx context.Context, orderID, address, key string) (s Shipment, created bool, err error) {
	h := http.Header{}
	if key != "" {
		h.Set(IdempotencyHeader, key)
	}
	status, err := c.do(ctx, http.MethodPost, "/shipments", shipmentRequest{OrderID: orderID, Address: address}, h, &s)
	return s, status == http.StatusCreated, err
}

func (c *carrierClient) getShipment(ctx context.Context, id string) (Shipment, error) {
	var s Shipment
	_, err := c.do(ctx, http.MethodGet, "/shipments/"+url.PathEscape(id), nil, nil, &s)
	return s, err
}

func (c *carrierClient) findShipments(ctx context.Context, orderID string) ([]Shipment, error) {
	var l shipmentList
	_, err := c.do(ctx, http.MethodGet, "/shipments?order_id="+url.QueryEscape(orderID), nil, nil, &l)
	return l.Shipments, err
}
