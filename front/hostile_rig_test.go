package front

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/mcptest"
)

// hostileRig is an HTTP front before an upstream with a real go-sdk
// server at /mcp and, beside it, small named upstreams that misbehave on
// purpose: /drain reads any body and counts it, /lenient answers any
// POST with a result for id 1 whatever its session header (a server that
// checks nothing), /silent never answers, /garbage answers with bytes
// that are not HTTP, /garbage-json with a body that is not JSON,
// /sse-big streams a 50 MB event, /sse-nonl a stream with no newline.
type hostileRig struct {
	front   *ServedFront
	base    string // the front's URL, no path
	client  *http.Client
	sink    *captureSink
	drained atomic.Int64
	arrived chan struct{} // a request reached /silent
	left    chan struct{} // /silent's or /sse-nonl's request ended
}

const lenientReply = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`

func newHostileRig(t *testing.T, lim Limits) *hostileRig {
	t.Helper()
	rig := &hostileRig{sink: newCaptureSink(), arrived: make(chan struct{}, 16), left: make(chan struct{}, 16)}
	srv := mcptest.NewServer(func(int) {})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	mux.HandleFunc("/drain", func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		rig.drained.Store(n)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, lenientReply)
	})
	mux.HandleFunc("/lenient", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, lenientReply)
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		// The first bytes of a body the client is still sending.
		if _, err := io.ReadFull(r.Body, make([]byte, 5)); err == nil {
			rig.arrived <- struct{}{}
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, lenientReply)
	})
	mux.HandleFunc("/silent", func(_ http.ResponseWriter, r *http.Request) {
		// A body read to its end lets the server notice the client leave.
		_, _ = io.Copy(io.Discard, r.Body)
		rig.arrived <- struct{}{}
		<-r.Context().Done()
		rig.left <- struct{}{}
	})
	mux.HandleFunc("/garbage", func(w http.ResponseWriter, _ *http.Request) {
		conn, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		_, _ = bw.WriteString("\x00\xffNOT HTTP AT ALL\r\n\r\n")
		_ = bw.Flush()
		_ = conn.Close()
	})
	mux.HandleFunc("/garbage-json", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{{{ not json \x00")
	})
	mux.HandleFunc("/sse-big", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: ")
		chunk := strings.Repeat("x", 1<<20)
		for range 50 {
			_, _ = io.WriteString(w, chunk)
		}
		_, _ = io.WriteString(w, "\n\n"+"data: "+lenientReply+"\n\n")
	})
	mux.HandleFunc("/sse-nonl", func(w http.ResponseWriter, r *http.Request) {
		defer func() { rig.left <- struct{}{} }()
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := strings.Repeat("y", 64<<10)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	})
	upstream := serveHTTP(t, mux)
	f, err := NewHTTPFront(HTTPOptions{Name: "mcp", Target: upstream, Sink: rig.sink, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rig.front = Serve(ln, f)
	rig.base = "http://" + ln.Addr().String()
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	rig.client = &http.Client{Transport: tr}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		if err := rig.front.Close(); err != nil {
			t.Errorf("close front: %v", err)
		}
	})
	return rig
}

// post sends body to path through the front with headers, and returns
// the status and how many bytes of the response it read.
func (rig *hostileRig) post(t *testing.T, ctx context.Context, path string, body io.Reader, header map[string]string) (int, int64, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rig.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := rig.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	n, _ := io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, n, nil
}

// healthy checks that a go-sdk client still gets an echo through the
// front.
func (rig *hostileRig) healthy(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := mcp.NewClient(&mcp.Implementation{Name: "after", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rig.base + "/mcp", HTTPClient: &http.Client{Transport: tr}}, nil)
	if err != nil {
		t.Fatalf("a normal client no longer connects through the front: %v", err)
	}
	defer func() { _ = cs.Close() }()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcptest.ToolEcho, Arguments: map[string]any{"text": "still here"}})
	if err != nil {
		t.Fatalf("a normal call through the front: %v", err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "still here" {
		t.Fatalf("a normal call through the front got %+v", res.Content)
	}
}

// heap is the heap in use after a collection.
func heap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// repeated streams prefix, n bytes of fill, then suffix, without holding
// them.
func repeated(prefix string, fill byte, n int64, suffix string) io.Reader {
	return io.MultiReader(strings.NewReader(prefix), io.LimitReader(fillReader(fill), n), strings.NewReader(suffix))
}

type fillReader byte

func (f fillReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(f)
	}
	return len(p), nil
}

// callBody is a tools/call request.
func callBody(id any, tool string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": map[string]any{}}})
	return string(b)
}

// readSome reads up to n bytes of an SSE GET through the front, then
// leaves.
func (rig *hostileRig) readSSE(t *testing.T, path string, n int64) (int64, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rig.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	br := bufio.NewReaderSize(io.LimitReader(resp.Body, n), 64<<10)
	var total int64
	var last string
	for {
		line, err := br.ReadSlice('\n')
		total += int64(len(line))
		if len(line) < 4096 && len(line) > 1 {
			last = string(line)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return total, last
		}
	}
}
