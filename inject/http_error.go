package inject

import (
	"fmt"
	"net/http"

	"github.com/mcpchaos/mcpchaos/rules"
)

// HTTPError answers an HTTP request with a status of the rule's choosing:
// without contacting the upstream, or, with AfterUpstream, after the
// upstream has committed the request (the client sees an error for a write
// that happened).
type HTTPError struct {
	// Status is the response status (default 503).
	Status int `json:"status,omitempty"`
	// Body is the response body.
	Body string `json:"body,omitempty"`
	// Headers are added to the response, e.g. Retry-After.
	Headers map[string]string `json:"headers,omitempty"`
	// AfterUpstream forwards the request first.
	AfterUpstream bool `json:"after_upstream,omitempty"`
}

// Kind implements [Fault].
func (*HTTPError) Kind() string { return "http_error" }

func (f *HTTPError) validate() error {
	if f.Status < 100 || f.Status > 599 {
		return &rules.FieldError{Field: "fault.status", Msg: fmt.Sprintf("must be an HTTP status (100-599), not %d", f.Status)}
	}
	return nil
}

// Exchange implements [ExchangeFault].
func (f *HTTPError) Exchange(x Exchange) error {
	if f.AfterUpstream {
		if _, err := x.Forward(-1); err != nil {
			return err
		}
	}
	h := make(http.Header, len(f.Headers)+1)
	for k, v := range f.Headers {
		h.Set(k, v)
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	return x.Respond(&Reply{Status: f.Status, Header: h, Body: []byte(f.Body)}, RespondOptions{})
}
