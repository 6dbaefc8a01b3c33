// Package orders is what every corpus server shares: the client for the
// order service upstream (at $UPSTREAM_URL), the replies and messages,
// the process's setup and exit status, and the go-sdk server shape. Keeping it here leaves each server's main.go showing only the
// behaviour it exists to demonstrate.
//
// The upstream contract (see ../README.md):
//
//	POST /orders  {"sku": "X", "qty": 2}  [Idempotency-Key: k]
//	              → 2xx {"id": "ORD-1", "sku": "X", "qty": 2}
//	GET  /orders?sku=X → 200 [{...}, ...] or {"orders": [...]}
package orders

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"
)

// EnvURL names the environment variable holding the upstream's base URL.
const EnvURL = "UPSTREAM_URL"

// Timeout bounds every upstream request, so a hung upstream becomes the
// server's verdict well inside a client's call deadline.
const Timeout = 1500 * time.Millisecond

// Order is an order as the upstream returns it.
type Order struct {
	ID  string `json:"id"`
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

// Kind is what is known about a failed upstream request.
type Kind string

// Kinds.
const (
	// Unreachable: no connection was made; nothing was sent.
	Unreachable Kind = "unreachable"
	// Unknown: sent, but no usable answer (timeout, dropped connection,
	// 5xx other than 503); the write may have committed.
	Unknown Kind = "unknown"
	// Busy: 429 or 503; refused, nothing committed.
	Busy Kind = "busy"
	// Rejected: another non-2xx status; refused for good.
	Rejected Kind = "rejected"
	// Cut: a 2xx whose body was cut or unreadable; the write committed.
	Cut Kind = "cut"
)

// Error is a failed upstream request. Error() is the raw Go error text,
// URL and all: what a careless server would show.
type Error struct {
	Kind Kind
	// Cause is short and leak-free ("connection refused", "HTTP 503").
	Cause string
	Err   error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// AsError returns err as an *Error (a foreign error counts as Unknown).
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Kind: Unknown, Cause: "internal error", Err: err}
}

// Client calls the upstream.
type Client struct {
	base string
	hc   *http.Client
}

// FromEnv returns a client for $UPSTREAM_URL.
func FromEnv() (*Client, error) {
	base := strings.TrimRight(os.Getenv(EnvURL), "/")
	if base == "" {
		return nil, fmt.Errorf("%s is not set", EnvURL)
	}
	return &Client{base: base, hc: &http.Client{
		Timeout: Timeout,
		// One connection per request: a fault that breaks a connection
		// breaks exactly one request, and the transport never replays a
		// request on a stale pooled connection. No environment proxy.
		Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil},
	}}, nil
}

// WithoutDeadline returns a copy of c whose requests have no deadline of
// their own: they last as long as the upstream or the tool call's context
// (the bug of the nodeadline server).
func (c *Client) WithoutDeadline() *Client {
	hc := *c.hc
	hc.Timeout = 0
	return &Client{base: c.base, hc: &hc}
}

// Key derives an idempotency key from the arguments, so a retried call
// carries the same key.
func Key(sku string, qty int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d", sku, qty))
	return hex.EncodeToString(sum[:16])
}

// Create posts an order; key, if set, is sent as Idempotency-Key.
func (c *Client) Create(ctx context.Context, sku string, qty int, key string) (Order, error) {
	var o Order
	err := c.do(ctx, http.MethodPost, "/orders", map[string]any{"sku": sku, "qty": qty}, key, func(b []byte) error {
		return json.Unmarshal(b, &o)
	})
	return o, err
}

// Put applies the order with the given id (PUT /orders/{id}: create or
// replace), so that repeating it leaves the upstream with one order.
func (c *Client) Put(ctx context.Context, id, sku string, qty int) (Order, error) {
	var o Order
	err := c.do(ctx, http.MethodPut, "/orders/"+url.PathEscape(id), map[string]any{"sku": sku, "qty": qty}, "", func(b []byte) error {
		return json.Unmarshal(b, &o)
	})
	return o, err
}

// List returns the orders for a SKU.
func (c *Client) List(ctx context.Context, sku string) ([]Order, error) {
	var l []Order
	err := c.do(ctx, http.MethodGet, "/orders?sku="+url.QueryEscape(sku), nil, "", func(b []byte) error {
		if json.Unmarshal(b, &l) == nil {
			return nil
		}
		var w struct {
			Orders []Order `json:"orders"`
		}
		err := json.Unmarshal(b, &w)
		l = w.Orders
		return err
	})
	if l == nil {
		l = []Order{}
	}
	return l, err
}

func (c *Client) do(ctx context.Context, method, path string, body any, key string, decode func([]byte) error) error {
	u := c.base + path
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return &Error{Kind: Rejected, Cause: "bad arguments", Err: err}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return &Error{Kind: Unreachable, Cause: "bad address", Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var op *net.OpError
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			return &Error{Kind: Unreachable, Cause: "connection refused", Err: err}
		case errors.As(err, &op) && op.Op == "dial":
			return &Error{Kind: Unreachable, Cause: "could not connect", Err: err}
		case isTimeout(err):
			return &Error{Kind: Unknown, Cause: "no answer in time", Err: err}
		default:
			return &Error{Kind: Unknown, Cause: "connection dropped", Err: err}
		}
	}
	defer resp.Body.Close()
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if s := resp.StatusCode; s < 200 || s > 299 {
		e := &Error{Cause: fmt.Sprintf("HTTP %d", s),
			Err: fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, strings.TrimSpace(string(data)))}
		switch {
		case s == 429 || s == 503:
			e.Kind = Busy
		case s >= 500:
			e.Kind = Unknown
		default:
			e.Kind = Rejected
		}
		return e
	}
	if rerr != nil {
		return &Error{Kind: Cut, Cause: "reply cut off", Err: fmt.Errorf("reading %s %s: %w", method, u, rerr)}
	}
	if err := decode(data); err != nil {
		return &Error{Kind: Cut, Cause: "reply unreadable", Err: fmt.Errorf("decoding %s %s: %w", method, u, err)}
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
