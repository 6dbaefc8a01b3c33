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
	// 1xx statuses are interim: a client that gets one alone waits for
	// the final status for ever (and 101 switches protocols).
	if f.Status < 200 || f.Status > 599 {
		return &rules.FieldError{Field: "fault.status", Msg: fmt.Sprintf("must be a final HTTP status (200-599), not %d", f.Status)}
	}
	return nil
}

// Exchange implements [ExchangeFault].
func (f *HTTPError) Exchange(x Exchange) error {
	if f.AfterUpstream {
		resp, err := x.Forward(ForwardOptions{})
		if err != nil {
			return err
		}
		resp.discard() // the client gets the rule's reply instead
	}
	h := make(http.Header, len(f.Headers)+1)
	for k, v := range f.Headers {
		h.Set(k, v)
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	return x.Respond(TextReply(f.Status, h, f.Body), RespondOptions{})
}
