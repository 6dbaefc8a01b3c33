package inject

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// rawClient is one client connection written to by hand, for what
// net/http's client would not send.
type rawClient struct {
	c  net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, rig *httpRig) *rawClient {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(rig.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawClient{c: c, br: bufio.NewReader(c)}
}

func (rc *rawClient) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(rc.c, s); err != nil {
		t.Fatal(err)
	}
}

// read reads one response to a request of method.
func (rc *rawClient) read(t *testing.T, method string) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(rc.br, &http.Request{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestHTTPRelayFraming: every way a response can end, on one keep-alive
// connection, each followed by a request that must still work.
func TestHTTPRelayFraming(t *testing.T) {
	rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		case "/notmodified":
			w.WriteHeader(http.StatusNotModified)
		case "/hints":
			w.Header().Set("Link", "</a.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			_, _ = io.WriteString(w, "after hints")
		case "/trailer":
			w.Header().Set("Trailer", "X-Sum")
			_, _ = io.WriteString(w, "chunk one ")
			http.NewResponseController(w).Flush()
			_, _ = io.WriteString(w, "chunk two")
			w.Header().Set("X-Sum", "42")
		case "/upclose":
			w.Header().Set("Connection", "close")
			_, _ = io.WriteString(w, "bye")
		case "/eof":
			c, brw, _ := http.NewResponseController(w).Hijack()
			_, _ = brw.WriteString("HTTP/1.1 200 OK\r\n\r\nuntil close")
			_ = brw.Flush()
			_ = c.Close()
		default:
			_, _ = io.WriteString(w, "hello")
		}
	}))
	c := rig.client(t, true)
	for _, tc := range []struct {
		method, path, body string
		status             int
	}{
		{"HEAD", "/", "", 200},
		{"GET", "/nocontent", "", 204},
		{"GET", "/notmodified", "", 304},
		{"GET", "/hints", "after hints", 200},
		{"GET", "/trailer", "chunk one chunk two", 200},
		{"GET", "/upclose", "bye", 200},
		{"GET", "/eof", "until close", 200},
		{"POST", "/", "hello", 200},
	} {
		req, _ := http.NewRequest(tc.method, rig.url+tc.path, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != tc.status || string(b) != tc.body {
			t.Errorf("%s %s: %d %q %v, want %d %q", tc.method, tc.path, resp.StatusCode, b, err, tc.status, tc.body)
		}
		if tc.path == "/trailer" && resp.Trailer.Get("X-Sum") != "42" {
			t.Errorf("trailer %v", resp.Trailer)
		}
	}
	for range 8 {
		e := rig.waitEvent(t, EventExchange)
		if e.Status == 0 || !e.Committed {
			t.Errorf("exchange %+v", e)
		}
	}
}

// TestHTTPRelayRaw: pipelined requests, bare LF heads, client close, and
// requests the relay hands to net/http with the bytes it read.
func TestHTTPRelayRaw(t *testing.T) {
	rig := newHTTPRig(t, nil)
	rc := dialRaw(t, rig)
	rc.send(t, "GET /a%20b?x=1 HTTP/1.1\r\nHost: h\r\n\r\nPOST /p HTTP/1.1\nHost: h\nContent-Length: 2\n\nhi")
	if resp, body := rc.read(t, "GET"); resp.StatusCode != 200 || body != "hello, world\n" {
		t.Errorf("first: %d %q", resp.StatusCode, body)
	}
	if resp, _ := rc.read(t, "POST"); resp.Header.Get("X-Body-Len") != "2" {
		t.Errorf("second: %v", resp.Header)
	}
	// Expect goes to net/http, which answers 100 Continue itself.
	rc.send(t, "PUT /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
	if resp, _ := rc.read(t, "PUT"); resp.StatusCode != 100 {
		t.Fatalf("expect: %d", resp.StatusCode)
	}
	rc.send(t, "abc")
	if resp, _ := rc.read(t, "PUT"); resp.Header.Get("X-Body-Len") != "3" {
		t.Errorf("after continue: %v", resp.Header)
	}
	for _, want := range []string{"/a b", "/p", "/e"} {
		if e := rig.waitEvent(t, EventExchange); e.Path != want || e.Status != 200 || e.Conn != 1 {
			t.Errorf("exchange %+v, want path %s", e, want)
		}
	}

	// A head bigger than the relay's buffer, then the client's close.
	rc2 := dialRaw(t, rig)
	big := strings.Repeat("x", 2*relayBufSize)
	rc2.send(t, "GET /big HTTP/1.1\r\nHost: h\r\nX-Foo: "+big+"\r\n\r\nGET /c HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
	if resp, _ := rc2.read(t, "GET"); resp.Header.Get("X-Got-Foo") != big {
		t.Errorf("big head: %d", resp.StatusCode)
	}
	rc2.read(t, "GET")
	if n, err := rc2.br.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Errorf("connection open after Connection: close: %d %v", n, err)
	}

	// HTTP/1.0 too.
	rc3 := dialRaw(t, rig)
	rc3.send(t, "GET /old HTTP/1.0\r\n\r\n")
	if resp, body := rc3.read(t, "GET"); resp.StatusCode != 200 || body != "hello, world\n" {
		t.Errorf("HTTP/1.0: %d %q", resp.StatusCode, body)
	}
}

// TestHTTPRelayUpstreamClosedIdle: a GET on an upstream connection the
// upstream closed while idle is sent again on a new one.
func TestHTTPRelayUpstreamClosedIdle(t *testing.T) {
	rig := newHTTPRig(t, nil)
	c := rig.client(t, true)
	for i := range 3 {
		if status, _ := doGet(t, c, rig.url+"/x"); status != 200 {
			t.Fatalf("request %d: %d", i+1, status)
		}
		rig.up.CloseClientConnections()
	}
	req, _ := http.NewRequest("POST", rig.url+"/x", strings.NewReader("body"))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// A POST is not sent twice; on Linux the relay sees the close before
	// sending and uses a new connection, elsewhere it may answer 502.
	if resp.StatusCode != 200 && (runtime.GOOS == "linux" || resp.StatusCode != 502) {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}
