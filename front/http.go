package front

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/internal/bufpool"
	"github.com/mcpchaos/mcpchaos/rules"
)

// HTTPOptions configures an [HTTPFront]. Name and Target are required.
type HTTPOptions struct {
	// Name is the front's name: the mcp upstream's. Its sessions are
	// "NAME/SESSION-ID", and a tamper rule for it names it as upstream.
	Name string
	// Target is the MCP server's base URL, http://host:port: each request
	// keeps its own path (the host is configured with the front's address
	// and the server's path, http://FRONT/mcp).
	Target string
	// Sink receives sessions and calls; nil means [Discard].
	Sink Sink
	// Tamper holds the rules that may tamper with replies; nil means none.
	Tamper *rules.Table
	// Limits bound what is parsed and kept.
	Limits Limits
	// Clock times calls; nil means the system clock.
	Clock rules.Clock
	// Transport reaches the server; nil means an http.Transport that dials
	// within 10 s.
	Transport http.RoundTripper
	Logger    zerolog.Logger
}

// SessionHeader is the Streamable HTTP transport's session header.
const SessionHeader = "Mcp-Session-Id"

// HTTPFront is a reverse proxy in front of a Streamable HTTP MCP server.
// Requests, responses, SSE streams, session headers and resumption
// (Last-Event-ID) pass through as net/http's ReverseProxy passes them
// (hop-by-hop headers aside; the Host is the target's, as if the client
// had called the server itself), flushed as they come; every tools/call
// in a POST body is recorded, with its reply from the POST's response or
// from any stream of the same session.
type HTTPFront struct {
	opts   HTTPOptions
	lim    Limits
	rp     *httputil.ReverseProxy
	tamper *tamperer
	tr     *http.Transport // ours to close, if we made it

	mu       sync.Mutex
	closed   bool
	sessions map[string]*session // by the front's session ID
	inflight sync.WaitGroup
	buffered atomic.Int64 // bytes reserved by requests reading their body
}

// NewHTTPFront returns a front for opts.Target.
func NewHTTPFront(opts HTTPOptions) (*HTTPFront, error) {
	target, err := url.Parse(opts.Target)
	if err != nil || target.Scheme != "http" || target.Host == "" {
		return nil, fmt.Errorf("mcp front %q: target %q must be http://host:port", opts.Name, opts.Target)
	}
	if opts.Sink == nil {
		opts.Sink = Discard{}
	}
	if opts.Clock == nil {
		opts.Clock = rules.SystemClock{}
	}
	f := &HTTPFront{opts: opts, lim: opts.Limits.withDefaults(), tamper: newTamperer(opts.Tamper, opts.Name),
		sessions: map[string]*session{}}
	rt := opts.Transport
	if rt == nil {
		f.tr = &http.Transport{
			Proxy:                 nil, // the target is given; an environment proxy would be a surprise
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConnsPerHost:   64,
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: 0, // a tool call may take as long as it takes
			DisableCompression:    true,
		}
		rt = f.tr
	}
	f.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = target.Scheme, target.Host
			pr.Out.Host = ""
		},
		Transport:      rt,
		BufferPool:     bufpool.New(64),
		FlushInterval:  -1,
		ModifyResponse: f.modifyResponse,
		ErrorHandler:   f.errorHandler,
		ErrorLog:       log.New(opts.Logger, "", 0),
	}
	return f, nil
}

// exchange is what a front knows of one request while it is proxied.
type exchange struct {
	sid   string    // the request's session header
	msgs  []message // the request body's messages, if it was read
	sess  *session
	calls []string // ids of the tools/call requests in the body
}

type exchangeKey struct{}

// ServeHTTP proxies one request, reading a POST body of at most
// Limits.MaxFrame bytes first (a larger one passes through unread).
func (f *HTTPFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.inflight.Add(1)
	defer f.inflight.Done()
	x := &exchange{sid: r.Header.Get(SessionHeader)}
	if r.Method == http.MethodPost && r.Body != nil && r.Body != http.NoBody && f.reserve() {
		defer f.buffered.Add(-int64(f.lim.MaxFrame) - 1) // the head is proxied by the time we return
		head, err := io.ReadAll(io.LimitReader(r.Body, int64(f.lim.MaxFrame)+1))
		rest := io.Reader(r.Body)
		if err != nil {
			rest = errReader{err}
		}
		r.Body = readCloser{io.MultiReader(bytes.NewReader(head), rest), r.Body}
		if err == nil && len(head) <= f.lim.MaxFrame {
			x.msgs = parseFrame(head)
		}
	}
	isInit := false
	for i := range x.msgs {
		m := &x.msgs[i]
		isInit = isInit || (m.isRequest() && m.Method == "initialize")
		if m.isRequest() && m.Method == "tools/call" {
			x.calls = append(x.calls, m.idKey())
		}
	}
	if x.sid != "" || !isInit {
		// An initialize without a session header learns its session from
		// the response; everything else is known now.
		x.sess = f.session(x.sid)
		if x.sess != nil {
			x.sess.expire()
			x.sess.fromClient(x.msgs)
		}
	}
	f.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x)))
}

// reserve takes room for one body's head within Limits.MaxBuffered.
func (f *HTTPFront) reserve() bool {
	n := int64(f.lim.MaxFrame) + 1
	if f.buffered.Add(n) > f.lim.MaxBuffered {
		f.buffered.Add(-n)
		return false
	}
	return true
}

// modifyResponse starts reading the response of an exchange.
func (f *HTTPFront) modifyResponse(resp *http.Response) error {
	x, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	if x == nil {
		return nil
	}
	if x.sess == nil && x.sid != "" {
		return nil // a session the front does not track
	}
	if x.sess == nil { // the response to an initialize names the session
		x.sess = f.session(resp.Header.Get(SessionHeader))
		if x.sess == nil {
			return nil
		}
		x.sess.fromClient(x.msgs)
	}
	sess := x.sess
	if resp.StatusCode/100 == 2 && resp.Request.Method == http.MethodDelete && x.sid != "" {
		f.end(x.sid, "deleted by the client")
	}
	hold := f.tamper.active()
	see := func(u []byte) reply {
		if msgs := parseFrame(u); msgs != nil {
			return sess.fromServer(msgs, hold)
		}
		return reply{}
	}
	ctx := resp.Request.Context()
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "text/event-stream":
		resp.Body = newTap(ctx, resp.Body, &sseSplit{max: f.lim.MaxFrame}, hold, false, sseSee(see))
	case "application/json":
		status := resp.StatusCode
		resp.Body = newTap(ctx, resp.Body, &wholeSplit{max: f.lim.MaxFrame}, hold, true, func(u []byte) reply {
			r := see(u)
			if status >= 400 { // whatever the body said, a call it left open failed
				sess.endCalls(x.calls, transportError(status))
			} else {
				// A JSON response holds the answers to the POST's
				// requests: a call it did not answer (the body is not
				// JSON-RPC) never will be, and must not stay open.
				sess.endCalls(x.calls, Call{Channel: ChannelProtocolError,
					Text: "the server's JSON response did not answer the call"})
			}
			return r
		})
		if hold {
			resp.Header.Del("Content-Length") // a rewritten reply has its own length
			resp.ContentLength = -1
		}
	default:
		if resp.StatusCode >= 400 {
			sess.endCalls(x.calls, transportError(resp.StatusCode))
		}
	}
	if resp.StatusCode == http.StatusNotFound && x.sid != "" {
		// The server no longer knows the session (spec: the client must
		// start a new one).
		f.end(x.sid, "the server answered 404: session expired")
	}
	return nil
}

func transportError(status int) Call {
	return Call{Channel: ChannelTransportError, Code: status, Text: fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))}
}

// errorHandler answers 502 when the server could not be reached or the
// exchange failed; the request's calls end in transport_error.
func (f *HTTPFront) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	if x, _ := r.Context().Value(exchangeKey{}).(*exchange); x != nil && x.sess != nil {
		x.sess.endCalls(x.calls, Call{Channel: ChannelTransportError, Code: http.StatusBadGateway,
			Text: "connection closed: " + err.Error()})
	}
	if !errors.Is(err, context.Canceled) {
		f.opts.Logger.Debug().Err(err).Str("path", r.URL.Path).Msg("mcp front: exchange failed")
	}
	w.WriteHeader(http.StatusBadGateway)
}

// sseSee reads an SSE event's data as a JSON-RPC frame; a rewritten
// reply keeps the event's other fields (id, event) and replaces its data.
func sseSee(see func([]byte) reply) func([]byte) reply {
	return func(ev []byte) reply {
		data, other := sseFields(ev)
		if data == nil {
			return reply{}
		}
		r := see(data)
		if r.out != nil {
			r.out = append(append(append(other, "data: "...), r.out...), "\n\n"...)
		}
		return r
	}
}

func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}

// readCloser reads from r and closes c.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (rc readCloser) Close() error { return rc.c.Close() }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
