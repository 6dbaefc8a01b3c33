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
	// Status is a final status: 1xx would leave the client waiting for
	// another answer.
	Status  int               `json:"status,omitempty" min:"200" max:"599" doc:"the response's status"`
	Body    string            `json:"body,omitempty" doc:"the response's body"`
	Headers map[string]string `json:"headers,omitempty" doc:"added to the response, e.g. {Retry-After: \"30\"}"`
	// AfterUpstream lets the client see an error for a write that happened.
	AfterUpstream bool `json:"after_upstream,omitempty" doc:"forward the request first, and answer once the upstream has"`
}

func httpErrorKind() KindInfo {
	return KindInfo{
		Name: "http_error", Summary: "answer with an HTTP status, before or after the upstream", HTTP: true,
		New: func() Fault { return &HTTPError{Status: 503} },
		Behavior: []Behavior{
			{ProtocolHTTP, "", "Answers with `status`, `body` and `headers` without contacting the upstream, or, with `after_upstream: true`, once the upstream has received the whole request and answered (its reply is discarded)."},
		},
		Examples: []map[string]any{{"status": 503}, {"status": 500}, {"status": 503, "after_upstream": true}},
	}
}

// effect implements [effecter]. Before the upstream, the server knows the
// request was not processed when the status says so by HTTP semantics
// (4xx, 503); a 500 or a success it cannot tell from the upstream's own.
func (f *HTTPError) effect(string) Effect {
	if f.AfterUpstream {
		return Effect{Outcome: OutcomeCommittedReplyLost}
	}
	knows := f.Status >= 400 && f.Status < 500 || f.Status == 503
	return Effect{Outcome: OutcomeRejectedBeforeCommit, ServerKnows: knows}
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
