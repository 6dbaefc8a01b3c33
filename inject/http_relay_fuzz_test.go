package inject

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// FuzzRelayFraming compares the idle relay's framing with net/http's on
// the same bytes: as requests from a client (response false) or as
// responses from an upstream to a GET or, if head, a HEAD. Wherever the
// relay takes a message itself it must be one net/http accepts, with the
// same method, path or status and the same length; and what the relay
// forwards must read, to net/http, as that one message and nothing more.
// Up to four keep-alive messages are followed; the relay handing a
// request to net/http, or refusing a response, ends the comparison (what
// follows is net/http's to read, or is never read).
func FuzzRelayFraming(f *testing.F) {
	const chunkedBody = "0\r\n\r\n" + smuggled
	for _, s := range []string{
		smuggle("Transfer-Encoding: chunked\r\nContent-Length: %d\r\n"),
		smuggle("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n"),
		"POST /f HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
		"POST /d HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
		"POST /d HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 30\r\n\r\nabc",
		"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=\"v\"\r\nhello\r\n0;last\r\nX-Sum: 42\r\nX-More: a\r\n\r\n",
		"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhelloXX0\r\n\r\n",
		"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\n\n",
		"GET /a HTTP/1.1\r\nHost: h\r\n\r\nPOST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nhiGET /c HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
		"GET /%41?x HTTP/1.1\nHost: h\n\n",
		"GET / HTTP/1.1\r\nHost: h\r\nConnection: close x\r\n\r\n",
		"GET /\x80{x}\\%2F?%zz HTTP/1.1\r\nHost: [::1]:80\r\nX-Forwarded-For: a\r\nX-Forwarded-For: b\r\nConnection: X-Hop, close\r\nX-Hop: 1\r\n\r\n",
		"POST /big HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", 3000) + "\r\na\r\n1\r\nb\r\n0\r\n\r\n",
	} {
		f.Add([]byte(s), false, false)
	}
	// Chunked bodies net/http reads or refuses, as requests and as
	// responses.
	for _, body := range []string{
		" 5\r\nhello\r\n0\r\n\r\n",
		"5 ;x\r\nhello\r\n0\r\n\r\n",
		"5; x \r\nhello\r\n0\r\n\r\n",
		"5\t\r\nhello\r\n0\r\n\r\n",
		"5\r\nhello\n0\r\n\r\n",
		"5\r\r\nhello\r\n0\r\n\r\n",
		"5\rx\r\nhello\r\n0\r\n\r\n",
		"0000000000000005\r\nhello\r\n0\r\n\r\n",
		"00000000000000005\r\nhello\r\n0\r\n\r\n",
		"-5\r\nhello\r\n0\r\n\r\n",
		"0x5\r\nhello\r\n0\r\n\r\n",
		strings.Repeat("1;"+strings.Repeat("e", 200)+"\r\nx\r\n", 100) + "0\r\n\r\n",
		"0\r\n\n",
		"0\r\nX: 1\n\r\n",
		"0\r\nX: 1\r\n y\r\n\r\n",
		"0\r\nX : 1\r\n\r\n",
		"0\r\nX: 1\r\n",
		"0\r\n" + strings.Repeat("X-Long: "+strings.Repeat("v", 100)+"\r\n", 41) + "\r\n",
	} {
		f.Add([]byte("POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"+body+"GET /n HTTP/1.1\r\nHost: h\r\n\r\n"), false, false)
		f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"+body+"HTTP/1.1 204 No Content\r\n\r\n"), true, false)
	}
	for _, s := range []struct {
		msg  string
		head bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", true},
		{"HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", false},
		{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false},
		{"HTTP/1.1 200 OK\r\nTrailer: X-Sum\r\nTransfer-Encoding: chunked\r\n\r\n3;a=b\r\nabc\r\n0\r\nX-Sum: 1\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 05\r\n\r\nhello", false},
		{"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody, false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nuntil close", false},
		{"HTTP/1.1 200 OK\nContent-Length: 2\n\nok", false},
		{"HTTP/1.1 000 Zero\r\nContent-Length: 2\r\n\r\nok", false},
		{"HTTP/1.1 200 OK\r\n\r\nuntil close", false},
		{"HTTP/1.1 200 OK\r\nConnection: close x\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 204 No Content\r\n\r\n", false},
	} {
		f.Add([]byte(s.msg), true, s.head)
	}
	f.Fuzz(func(t *testing.T, msg []byte, response, head bool) {
		if response {
			compareResponses(t, msg, head)
		} else {
			compareRequests(t, msg)
		}
	})
}

// consumed is how much of a message source a buffered reader has used.
func consumed(src *bytes.Reader, br *bufio.Reader, size int) int {
	return size - src.Len() - br.Buffered()
}

func compareRequests(t *testing.T, msg []byte) {
	rsrc, nsrc := bytes.NewReader(msg), bytes.NewReader(msg)
	rbr, nbr := bufio.NewReaderSize(rsrc, relayBufSize), bufio.NewReaderSize(nsrc, relayBufSize)
	r := &relay{p: &httpProxy{target: "upstream.test:80", bufs: newBufferPool()}, br: rbr, ip: "192.0.2.1"}
	for i := range 4 {
		raw, err := peekHead(rbr, nil)
		if err != nil {
			return
		}
		h, err := parseRequest(raw)
		if err != nil {
			return // net/http's to read, from the start of this request
		}
		req, err := http.ReadRequest(nbr)
		if err != nil {
			t.Fatalf("request %d: the relay takes it, net/http refuses it: %v", i, err)
		}
		if req.Method != h.method || req.URL.Path != h.path || (req.Close && !h.close) {
			t.Fatalf("request %d: relay %s %q close %v, net/http %s %q close %v",
				i, h.method, h.path, h.close, req.Method, req.URL.Path, req.Close)
		}
		var up bytes.Buffer
		uw := bufio.NewWriterSize(&up, relayBufSize)
		pending := true
		rerr := r.writeRequest(uw, &up, &h, &pending)
		if pending {
			_, _ = rbr.Discard(len(raw))
		}
		body, nerr := io.ReadAll(req.Body)
		if rerr != nil {
			return // the relay drops both connections: nothing more is sent
		}
		if nerr != nil {
			t.Fatalf("request %d: the relay forwards a body net/http refuses: %v", i, nerr)
		}
		if rn, nn := consumed(rsrc, rbr, len(msg)), consumed(nsrc, nbr, len(msg)); rn != nn {
			t.Fatalf("request %d: the relay framed %d bytes, net/http %d", i, rn, nn)
		}
		// What the upstream reads: this request, its body, no more.
		sent := up.Bytes()
		ubr := bufio.NewReader(bytes.NewReader(sent))
		got, err := http.ReadRequest(ubr)
		if err != nil {
			t.Fatalf("request %d: the upstream cannot read what the relay sent: %v\n%q", i, err, sent)
		}
		gotBody, err := io.ReadAll(got.Body)
		if err != nil || !bytes.Equal(gotBody, body) || got.Method != req.Method || got.URL.Path != req.URL.Path {
			t.Fatalf("request %d: the upstream reads %s %q body %q (%v), net/http read %s %q body %q",
				i, got.Method, got.URL.Path, gotBody, err, req.Method, req.URL.Path, body)
		}
		if n := ubr.Buffered(); n > 0 {
			t.Fatalf("request %d: %d bytes sent after the request: %q", i, n, sent[len(sent)-n:])
		}
		if h.close {
			return
		}
	}
}

func compareResponses(t *testing.T, msg []byte, head bool) {
	method := "GET"
	if head {
		method = "HEAD"
	}
	rsrc, nsrc := bytes.NewReader(msg), bytes.NewReader(msg)
	rbr, nbr := bufio.NewReaderSize(rsrc, relayBufSize), bufio.NewReaderSize(nsrc, relayBufSize)
	for i := range 4 {
		raw, err := peekHead(rbr, nil)
		if err != nil {
			return
		}
		rh, err := parseResponse(raw, head)
		if err != nil || rh.status == 101 {
			return // 502: the relay reads no more of this connection
		}
		resp, err := http.ReadResponse(nbr, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("response %d: the relay takes it, net/http refuses it: %v", i, err)
		}
		if resp.StatusCode != rh.status || (resp.Close && !rh.close) {
			t.Fatalf("response %d: relay %d close %v, net/http %d close %v", i, rh.status, rh.close, resp.StatusCode, resp.Close)
		}
		var down bytes.Buffer
		dw := bufio.NewWriterSize(&down, relayBufSize)
		rerr := rh.writeHead(dw)
		_, _ = rbr.Discard(len(raw))
		out := bodyCopier{dst: dw, raw: &down, src: rbr, bufs: newBufferPool()}
		if rerr == nil {
			switch rh.framing {
			case bodyLength:
				rerr = out.copyN(rh.length)
			case bodyChunked:
				rerr = out.copyChunked()
			case bodyUntilClose:
				rerr = out.copyToEOF()
			}
		}
		if rerr == nil {
			rerr = dw.Flush()
		}
		body, nerr := io.ReadAll(resp.Body)
		if rerr != nil {
			return // the relay drops both connections
		}
		if nerr != nil {
			t.Fatalf("response %d: the relay relays a body net/http refuses: %v", i, nerr)
		}
		if rn, nn := consumed(rsrc, rbr, len(msg)), consumed(nsrc, nbr, len(msg)); rn != nn {
			t.Fatalf("response %d: the relay framed %d bytes, net/http %d", i, rn, nn)
		}
		// What the client reads: this response, its body, no more.
		sent := down.Bytes()
		cbr := bufio.NewReader(bytes.NewReader(sent))
		got, err := http.ReadResponse(cbr, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("response %d: the client cannot read what the relay sent: %v\n%q", i, err, sent)
		}
		gotBody, err := io.ReadAll(got.Body)
		if err != nil || !bytes.Equal(gotBody, body) || got.StatusCode != rh.status {
			t.Fatalf("response %d: the client reads %d body %q (%v), net/http read %d body %q",
				i, got.StatusCode, gotBody, err, resp.StatusCode, body)
		}
		if n := cbr.Buffered(); n > 0 {
			t.Fatalf("response %d: %d bytes sent after the response: %q", i, n, sent[len(sent)-n:])
		}
		if rh.close {
			return
		}
	}
}
