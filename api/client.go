package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ClientOptions configures a [Client]. The zero value talks to a server
// without a token over http.DefaultClient's transport.
type ClientOptions struct {
	// Token is sent as "Authorization: Bearer TOKEN" when set.
	Token string
	// Actor is sent as X-Mcpchaos-Actor: who is acting, for the audit
	// trail ("alice", "ci job 42").
	Actor string
	// HTTPClient sends the requests; nil means a client without a
	// timeout (event streams and long polls are long; pass contexts).
	HTTPClient *http.Client
}

// Client is a typed client of the control API. Its methods are safe for
// concurrent use. An error response is returned as an *[Error].
type Client struct {
	base *url.URL
	opts ClientOptions
	hc   *http.Client
}

// NewClient returns a client of the API at baseURL ("http://127.0.0.1:7777").
func NewClient(baseURL string, opts ClientOptions) (*Client, error) {
	if !strings.Contains(baseURL, "://") {
		baseURL = "http://" + baseURL
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("API address %q is not an http(s) URL", baseURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{base: u, opts: opts, hc: hc}, nil
}

// urlPath joins escaped segments: names may hold spaces or slashes.
func urlPath(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// request builds a request for rel (already escaped, may carry a query).
func (c *Client) request(ctx context.Context, method, rel string, body io.Reader, contentType string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+rel, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
	if c.opts.Actor != "" {
		req.Header.Set(ActorHeader, c.opts.Actor)
	}
	return req, nil
}

// do sends a JSON request (in may be nil) and decodes a JSON response into
// out (may be nil). It returns the response's status.
func (c *Client) do(ctx context.Context, method, rel string, in, out any) (int, error) {
	var body io.Reader
	ct := ""
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", method, rel, err)
		}
		body, ct = bytes.NewReader(data), "application/json"
	}
	return c.send(ctx, method, rel, body, ct, out)
}

// send sends body as contentType and decodes the response into out.
func (c *Client) send(ctx context.Context, method, rel string, body io.Reader, contentType string, out any) (int, error) {
	req, err := c.request(ctx, method, rel, body, contentType)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, rel, err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, rel, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return resp.StatusCode, responseError(resp)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: decoding the response: %w", method, rel, err)
	}
	return resp.StatusCode, nil
}

// responseError reads an error response into an *Error; a body that is
// not the API's error envelope (a proxy's page) becomes its first line.
func responseError(resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var eb errorBody
	if err := json.Unmarshal(data, &eb); err == nil && eb.Error != nil && eb.Error.Code != "" {
		eb.Error.Status = resp.StatusCode
		return eb.Error
	}
	msg, _, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return &Error{Status: resp.StatusCode, Code: CodeInternal, Message: msg}
}

// Health checks the server is up.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	_, err := c.do(ctx, http.MethodGet, "/healthz", nil, &h)
	return h, err
}

// Halt removes every fault and enables every disabled upstream.
func (c *Client) Halt(ctx context.Context) (HaltResult, error) {
	var h HaltResult
	_, err := c.do(ctx, http.MethodPost, "/v1/halt", nil, &h)
	return h, err
}

// Audit returns up to limit of the latest audit entries (0: all kept).
func (c *Client) Audit(ctx context.Context, limit int) ([]AuditEntry, error) {
	rel := "/v1/audit"
	if limit > 0 {
		rel += fmt.Sprintf("?limit=%d", limit)
	}
	var l AuditList
	_, err := c.do(ctx, http.MethodGet, rel, nil, &l)
	return l.Entries, err
}
