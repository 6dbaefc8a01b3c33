package inject

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/bufpool"
)

// newTransport returns the pooled client the proxy forwards with. It
// leaves bodies as they are (no transparent gzip) and ignores proxy
// environment variables: the target is the upstream itself.
func (p *httpProxy) newTransport() *http.Transport {
	return &http.Transport{
		DialContext:           func(ctx context.Context, _, _ string) (net.Conn, error) { return p.dialUp(ctx) },
		MaxIdleConns:          maxIdlePerHost,
		MaxIdleConnsPerHost:   maxIdlePerHost,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}

// dialUp connects to the upstream: the target, or for a forward proxy's
// destination the address it resolves to, in TLS for an intercepted
// tunnel's.
func (p *httpProxy) dialUp(ctx context.Context) (net.Conn, error) {
	if p.way != nil {
		return p.way.dial(ctx)
	}
	return p.dialer.DialContext(ctx, "tcp", p.target)
}

// newReverseProxy returns the fast path: httputil.ReverseProxy streaming
// to the target, with a shared buffer pool (ReverseProxy would allocate
// 32 KiB per request otherwise) and the upstream's status recorded for the
// exchange event.
func (p *httpProxy) newReverseProxy() *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = "http"
			pr.Out.URL.Host = p.target
			pr.Out.Host = p.hostHeader // as a direct client would send
			// Rewrite mode strips forwarding headers; keep the client's
			// and append the client's address, as Director mode does.
			for _, h := range forwardingHeaders {
				if v, ok := pr.In.Header[h]; ok {
					pr.Out.Header[h] = v
				}
			}
			setForwardedFor(pr.Out.Header, pr.In)
			if tc := connOf(pr.In); tc != nil {
				pr.Out = pr.Out.WithContext(traceWrote(pr.Out.Context(), &tc.reached))
			}
		},
		Transport:  p.transport,
		BufferPool: newBufferPool(),
		ModifyResponse: func(resp *http.Response) error {
			if tc := connOf(resp.Request); tc != nil {
				tc.status, tc.client = resp.StatusCode, resp.StatusCode
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.log.Debug().Err(err).Msg("forward failed")
			if tc := connOf(r); tc != nil && r.Context().Err() == nil {
				tc.client = http.StatusBadGateway
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
}

// forwardingHeaders are the headers ReverseProxy's Rewrite mode removes
// from the outbound request before calling Rewrite.
var forwardingHeaders = [...]string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"}

// setForwardedFor appends the client's IP to X-Forwarded-For, exactly as
// ReverseProxy's Director mode does (a nil value means "leave it out").
func setForwardedFor(h http.Header, in *http.Request) {
	ip, _, err := net.SplitHostPort(in.RemoteAddr)
	if err != nil {
		return
	}
	prior, ok := h["X-Forwarded-For"]
	if ok && prior == nil {
		return
	}
	if len(prior) > 0 {
		ip = strings.Join(prior, ", ") + ", " + ip
	}
	h["X-Forwarded-For"] = []string{ip}
}

// hopHeaders are the hop-by-hop headers of RFC 7230 §6.1, as
// httputil.ReverseProxy lists them.
var hopHeaders = [...]string{
	"Connection",
	"Proxy-Connection",
	"Keep-Alive",
	"Proxy-Authenticate",
	"Proxy-Authorization",
	"Te",
	"Trailer",
	"Transfer-Encoding",
	"Upgrade",
}

// removeHopHeaders deletes hop-by-hop headers, including those the
// Connection header names.
func removeHopHeaders(h http.Header) {
	for _, f := range h["Connection"] {
		for sf := range strings.SplitSeq(f, ",") {
			if sf = textproto.TrimString(sf); sf != "" {
				h.Del(sf)
			}
		}
	}
	for _, f := range hopHeaders {
		h.Del(f)
	}
}

// newBufferPool is the copy buffers of one proxy (bufpool.Pool).
func newBufferPool() bufpool.Pool { return bufpool.New(64) }
