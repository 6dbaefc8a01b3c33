package front

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/mcptest"
	"github.com/mcpchaos/mcpchaos/rules"
)

// seen is one HTTP exchange as one side saw it.
type seen struct {
	method, session, lastEventID string
	reqBody                      []byte
	status                       int
	contentType                  string
	respBody                     []byte
	complete                     bool // the body was read (written) to its end
}

// request identifies the exchange by what the client sent.
func (s seen) request() string {
	return strings.Join([]string{s.method, s.session, s.lastEventID, string(s.reqBody)}, "\x00")
}

// exchangeLog collects exchanges from one side.
type exchangeLog struct {
	mu sync.Mutex
	ex []*seen
}

func (tr *exchangeLog) add(s *seen) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.ex = append(tr.ex, s)
}

// byRequest returns the exchanges of method, by request.
func (tr *exchangeLog) byRequest(method string) map[string]*seen {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := map[string]*seen{}
	for _, s := range tr.ex {
		if s.method == method {
			out[s.request()] = s
		}
	}
	return out
}

// settle waits until the server has recorded every exchange of method
// the client made, for at most 10 s.
func settle(t *testing.T, rig *httpRig, method string) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); len(rig.serverSide.byRequest(method)) < len(rig.clientSide.byRequest(method)); <-tick.C {
		if time.Now().After(deadline) {
			t.Fatalf("the server recorded %d %s exchanges, the client %d", len(rig.serverSide.byRequest(method)),
				method, len(rig.clientSide.byRequest(method)))
		}
	}
}

// compareSides checks that every exchange of method the server saw, the
// client sent as it is, and got the server's status, content type and
// body: all of it when it read to the end, a prefix when it stopped
// reading first (a go-sdk client closes an SSE stream once it has its
// reply). It returns how many exchanges it compared.
func compareSides(t *testing.T, client, server *exchangeLog, method string) int {
	t.Helper()
	cs, ss := client.byRequest(method), server.byRequest(method)
	client.mu.Lock()
	defer client.mu.Unlock()
	for req, s := range ss {
		c, ok := cs[req]
		switch {
		case !ok:
			t.Errorf("the server got a %s the client did not send as such: %q", method, req)
		case c.status != s.status || c.contentType != s.contentType:
			t.Errorf("%q: client got %d %s, server sent %d %s", req, c.status, c.contentType, s.status, s.contentType)
		case c.complete && s.complete && !bytes.Equal(c.respBody, s.respBody),
			!bytes.HasPrefix(s.respBody, c.respBody):
			t.Errorf("%q: client read %q, server wrote %q", req, c.respBody, s.respBody)
		}
	}
	if len(cs) != len(ss) {
		t.Errorf("the client sent %d %s requests, the server got %d", len(cs), method, len(ss))
	}
	return len(ss)
}

// serverSide records what the MCP server's handler reads and writes.
func serverSide(tr *exchangeLog, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := &seen{method: r.Method, session: r.Header.Get(SessionHeader), lastEventID: r.Header.Get("Last-Event-ID")}
		s.reqBody, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(s.reqBody))
		rw := &recordingWriter{ResponseWriter: w, s: s}
		h.ServeHTTP(rw, r)
		rw.mu.Lock()
		s.complete = r.Context().Err() == nil
		rw.mu.Unlock()
		tr.add(s)
	})
}

type recordingWriter struct {
	http.ResponseWriter
	mu sync.Mutex
	s  *seen
}

func (w *recordingWriter) WriteHeader(code int) {
	w.s.status, w.s.contentType = code, w.Header().Get("Content-Type")
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.s.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.mu.Lock()
	w.s.respBody = append(w.s.respBody, p...)
	w.mu.Unlock()
	return w.ResponseWriter.Write(p)
}

func (w *recordingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// clientSide records what the client sends and reads.
type clientSide struct {
	tr   *exchangeLog
	base http.RoundTripper
}

func (c *clientSide) RoundTrip(r *http.Request) (*http.Response, error) {
	s := &seen{method: r.Method, session: r.Header.Get(SessionHeader), lastEventID: r.Header.Get("Last-Event-ID")}
	if r.Body != nil {
		s.reqBody, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(s.reqBody))
	}
	resp, err := c.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	s.status, s.contentType = resp.StatusCode, resp.Header.Get("Content-Type")
	c.tr.add(s)
	resp.Body = &recordingBody{ReadCloser: resp.Body, s: s, tr: c.tr}
	return resp, nil
}

// recordingBody records what the client reads, under the log's
// lock: the client may still drain a body while the test compares.
type recordingBody struct {
	io.ReadCloser
	s  *seen
	tr *exchangeLog
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.tr.mu.Lock()
	b.s.respBody = append(b.s.respBody, p[:n]...)
	b.s.complete = b.s.complete || errors.Is(err, io.EOF)
	b.tr.mu.Unlock()
	return n, err
}

// httpRig is the test server behind an HTTP front, with a go-sdk client.
type httpRig struct {
	front      *ServedFront
	frontURL   string
	serverSide *exchangeLog
	clientSide *exchangeLog
	sink       *captureSink
	client     *http.Client
}

func newHTTPRig(t *testing.T, jsonResponse bool, tamper *rules.Table) *httpRig {
	t.Helper()
	rig := &httpRig{serverSide: &exchangeLog{}, clientSide: &exchangeLog{}, sink: newCaptureSink()}
	srv := mcptest.NewServer(func(int) {})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse, EventStore: mcp.NewMemoryEventStore(nil)})
	upLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up := &http.Server{Handler: serverSide(rig.serverSide, h), ReadHeaderTimeout: 5 * time.Second}
	upDone := make(chan struct{})
	go func() {
		defer close(upDone)
		_ = up.Serve(upLn)
	}()
	f, err := NewHTTPFront(HTTPOptions{Name: "mcp", Target: "http://" + upLn.Addr().String(), Sink: rig.sink, Tamper: tamper})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rig.front = Serve(ln, f)
	rig.frontURL = "http://" + ln.Addr().String() + "/mcp"
	tr := &http.Transport{}
	rig.client = &http.Client{Transport: &clientSide{tr: rig.clientSide, base: tr}}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		if err := rig.front.Close(); err != nil {
			t.Errorf("close front: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = up.Shutdown(ctx)
		<-upDone
	})
	return rig
}

// connect starts a go-sdk client session through the front.
func (rig *httpRig) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "2"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rig.frontURL, HTTPClient: rig.client}, nil)
	if err != nil {
		t.Fatalf("connect through the front: %v", err)
	}
	return cs
}
