package inject

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRelayParseRequestStrict: the requests whose framing the relay is
// not sure of go to net/http (errSlowPath); plain ones stay on the relay
// with the framing net/http gives them.
func TestRelayParseRequestStrict(t *testing.T) {
	const start = "POST /p HTTP/1.1\r\nHost: h\r\n"
	for _, tc := range []struct {
		name, head string
		bodyLen    int64 // -1 chunked; ignored when slow
		slow       bool
	}{
		{"length", start + "Content-Length: 5\r\n\r\n", 5, false},
		{"chunked", start + "Transfer-Encoding: chunked\r\n\r\n", -1, false},
		{"no body", start + "\r\n", 0, false},
		{"te then cl", start + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", 0, true},
		{"cl then te", start + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 0, true},
		{"te twice", start + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 0, true},
		{"te gzip", start + "Transfer-Encoding: gzip, chunked\r\n\r\n", 0, true},
		{"te identity", start + "Transfer-Encoding: identity\r\n\r\n", 0, true},
		{"obs-fold", start + "X-A: 1\r\n Content-Length: 5\r\n\r\n", 0, true},
		{"obs-fold tab", start + "Content-Length: 5\r\n\tX: y\r\n\r\n", 0, true},
		{"cl twice same", start + "Content-Length: 5\r\nContent-Length: 5\r\n\r\n", 0, true},
		{"cl twice differing", start + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", 0, true},
		{"cl list", start + "Content-Length: 5, 5\r\n\r\n", 0, true},
		{"cl sign", start + "Content-Length: +5\r\n\r\n", 0, true},
		{"cl empty", start + "Content-Length: \r\n\r\n", 0, true},
		{"cl too long", start + "Content-Length: 1234567890123456789\r\n\r\n", 0, true},
		{"space before colon", start + "Content-Length : 5\r\n\r\n", 0, true},
		{"space in name", start + "Content Length: 5\r\n\r\n", 0, true},
		{"bare lf header", start + "Content-Length: 5\n\r\n", 0, true},
		{"bare lf blank line", start + "Content-Length: 5\r\n\n", 0, true},
		{"bare lf request line", "POST /p HTTP/1.1\nHost: h\r\n\r\n", 0, true},
		{"cr in value", start + "X: a\rb\r\n\r\n", 0, true},
		{"no host", "GET / HTTP/1.1\r\n\r\n", 0, true},
		{"two hosts", start + "Host: h\r\n\r\n", 0, true},
		{"odd host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 0, true},
		{"connection not a token", start + "Connection: close x\r\n\r\n", 0, true},
		{"version only", "0 HTTP/1.1\r\n\r\n", 0, true},
		{"method without target", "GET HTTP/1.1\r\nHost: h\r\n\r\n", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := parseRequest([]byte(tc.head))
			if tc.slow {
				if !errors.Is(err, errSlowPath) {
					t.Fatalf("got %v, bodyLen %d; want errSlowPath", err, h.bodyLen)
				}
				return
			}
			if err != nil || h.bodyLen != tc.bodyLen {
				t.Fatalf("got %v, bodyLen %d; want bodyLen %d", err, h.bodyLen, tc.bodyLen)
			}
		})
	}
}

// TestRelayParseResponseStrict: responses net/http would refuse or frame
// otherwise are errBadResponse; Content-Length beside the chunked coding
// is left out of what the client gets.
func TestRelayParseResponseStrict(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		framing    int
		bad, drop  bool
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", bodyLength, false, false},
		{"length twice same", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", bodyLength, false, false},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", bodyChunked, false, false},
		{"cl and te", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n", bodyChunked, false, true},
		{"until close", "HTTP/1.1 200 OK\r\n\r\n", bodyUntilClose, false, false},
		{"bare lf", "HTTP/1.1 200 OK\nContent-Length: 5\n\n", bodyLength, false, false},
		{"no content", "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", bodyNone, false, false},
		{"hints", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", bodyNone, false, false},
		{"length text differs", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 05\r\n\r\n", 0, true, false},
		{"te gzip", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", 0, true, false},
		{"te twice", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 0, true, false},
		{"te on 1.0", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0, true, false},
		{"status 000", "HTTP/1.1 000 Zero\r\nContent-Length: 2\r\n\r\n", 0, true, false},
		{"version 1.x", "HTTP/1.x 200 OK\r\n\r\n", 0, true, false},
		{"obs-fold", "HTTP/1.1 200 OK\r\nX: a\r\n Content-Length: 5\r\n\r\n", 0, true, false},
		{"bad name", "HTTP/1.1 200 OK\r\nContent-Length\x0b: 5\r\n\r\n", 0, true, false},
		{"trailer names length", "HTTP/1.1 200 OK\r\nTrailer: Content-Length\r\nTransfer-Encoding: chunked\r\n\r\n", 0, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := parseResponse([]byte(tc.head), false)
			if tc.bad {
				if !errors.Is(err, errBadResponse) {
					t.Fatalf("got %v, framing %d; want errBadResponse", err, h.framing)
				}
				return
			}
			if err != nil || h.framing != tc.framing || h.dropLength != tc.drop {
				t.Fatalf("got %v, framing %d, dropLength %v; want framing %d, dropLength %v", err, h.framing, h.dropLength, tc.framing, tc.drop)
			}
		})
	}
}

// TestHTTPRelayResponseStrict: through real sockets, an upstream's
// response with both framings reaches the client chunked and without its
// Content-Length, and ones net/http would refuse become 502.
func TestHTTPRelayResponseStrict(t *testing.T) {
	raw := map[string]string{
		"/cl-te":   "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
		"/gzip":    "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc",
		"/zero":    "HTTP/1.1 000 Zero\r\nContent-Length: 2\r\n\r\nok",
		"/cl-text": "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 02\r\n\r\nok",
		"/chunk":   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX0\r\n\r\n",
	}
	rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		_, _ = brw.WriteString(raw[r.URL.Path])
		_ = brw.Flush()
		_ = c.Close()
	}))
	for _, tc := range []struct {
		path string
		want string // in what the client reads
		not  string // not in it
	}{
		{"/cl-te", "\r\n\r\n2\r\nok\r\n0\r\n\r\n", "Content-Length"},
		{"/gzip", "HTTP/1.1 502 ", "abc"},
		{"/zero", "HTTP/1.1 502 ", "Zero"},
		{"/cl-text", "HTTP/1.1 502 ", "ok"},
		// The chunk's bad end is found before it is relayed: the
		// connection ends with none of it (what was buffered is
		// dropped with it).
		{"/chunk", "", "XX"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rc := dialRaw(t, rig)
			rc.send(t, "GET "+tc.path+" HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
			b, _ := io.ReadAll(rc.br)
			got := string(b)
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.not) {
				t.Errorf("client read %q; want %q in it and no %q", got, tc.want, tc.not)
			}
			if e := rig.waitEvent(t, EventExchange); e.Path != tc.path {
				t.Errorf("exchange %+v", e)
			}
		})
	}
}

// TestTokenByte checks tokenByte's bit masks against the definition.
func TestTokenByte(t *testing.T) {
	for c := range 256 {
		want := c > ' ' && c < 0x7f && !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, rune(c))
		if got := tokenByte(byte(c)); got != want {
			t.Errorf("tokenByte(%#x) = %v", c, got)
		}
	}
}

// TestHTTPRelayBadRequestLine: request lines the relay once sliced out of
// range (a panic that ended the process) go to net/http, which answers
// 400; the proxy serves the next connection.
func TestHTTPRelayBadRequestLine(t *testing.T) {
	rig := newHTTPRig(t, nil)
	for _, line := range []string{"0 HTTP/1.1", "GET HTTP/1.1", " HTTP/1.1", "GET  HTTP/1.1"} {
		rc := dialRaw(t, rig)
		rc.send(t, line+"\r\nHost: h\r\n\r\n")
		if resp, _ := rc.read(t, "GET"); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%q: %d, want 400", line, resp.StatusCode)
		}
	}
	rc := dialRaw(t, rig)
	rc.send(t, "GET /after HTTP/1.1\r\nHost: h\r\n\r\n")
	if resp, _ := rc.read(t, "GET"); resp.StatusCode != http.StatusOK {
		t.Errorf("after: %d", resp.StatusCode)
	}
}

// TestHTTPRelayPanicEndsConnection: a bug that panics while the relay
// serves a connection ends that connection, not the process; the next
// connection is served.
func TestHTTPRelayPanicEndsConnection(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(httpUpstream))
	t.Cleanup(up.Close)
	// The relay asks for the call context during an exchange: the first
	// time, it meets the bug.
	pe := panicOnceEnv(UpstreamSpec{Name: "carrier", Protocol: ProtocolHTTP, Target: up.URL})
	g, err := listenGate("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newHTTPProxy(pe, g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.close(); err != nil {
			t.Errorf("close proxy: %v", err)
		}
	})
	rig := &httpRig{url: "http://" + p.addr().String()}
	rc := dialRaw(t, rig)
	rc.send(t, "GET /first HTTP/1.1\r\nHost: h\r\n\r\n")
	if b, err := io.ReadAll(rc.br); len(b) != 0 || err != nil {
		t.Errorf("first connection: read %q, %v; want its end", b, err)
	}
	rc = dialRaw(t, rig)
	rc.send(t, "GET /second HTTP/1.1\r\nHost: h\r\n\r\n")
	if resp, _ := rc.read(t, "GET"); resp.StatusCode != http.StatusOK {
		t.Errorf("second connection: %d", resp.StatusCode)
	}
}
