package driver

import (
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// httpTripper adds the spec's headers to every request and remembers the
// status of the last POST, because the SDK reports an HTTP failure as
// text ("Bad Gateway") and the transport_error channel keeps the number.
type httpTripper struct {
	base    http.RoundTripper
	headers map[string]string
	// status is the last POST's HTTP status (0: no response at all).
	status atomic.Int64
}

func newHTTPTripper(headers map[string]string) *httpTripper {
	base := &http.Transport{
		Proxy: nil, // the server under test is local; never go through a proxy
		DialContext: (&net.Dialer{
			Timeout:   5 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     30 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
	}
	return &httpTripper{base: base, headers: headers}
}

// client returns an HTTP client using the tripper. It has no overall
// timeout: an SSE response lasts as long as its call, and every call has
// its own deadline.
func (t *httpTripper) client() *http.Client { return &http.Client{Transport: t} }

// RoundTrip implements http.RoundTripper.
func (t *httpTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if req.Method == http.MethodPost {
		if err != nil {
			t.status.Store(0)
		} else {
			t.status.Store(int64(resp.StatusCode))
		}
	}
	return resp, err
}

// lastStatus returns the last POST's status, or 0.
func (t *httpTripper) lastStatus() int {
	if t == nil {
		return 0
	}
	return int(t.status.Load())
}

// reset forgets the last status before a call.
func (t *httpTripper) reset() {
	if t != nil {
		t.status.Store(-1)
	}
}

// close releases idle connections.
func (t *httpTripper) close() {
	if tr, ok := t.base.(*http.Transport); ok {
		tr.CloseIdleConnections()
	}
}
