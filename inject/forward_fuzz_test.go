package inject

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"strings"
	"testing"
)

// FuzzParseForwardHead: whatever a client sends as its first request
// line, the forward proxy gets a destination it can dial (a valid
// host:port, a lower-case host) or an error; it never panics.
func FuzzParseForwardHead(f *testing.F) {
	for _, s := range []string{
		"CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n",
		"CONNECT [::1]:8443 HTTP/1.1\r\n\r\n",
		"GET http://Example.test/a?b HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET http://[::1]/ HTTP/1.0\r\n\r\n",
		"GET http://user@host/ HTTP/1.1\r\n\r\n",
		"GET HTTP://host:99999/ HTTP/1.1\r\n\r\n",
		"CONNECT host HTTP/1.1\r\n\r\n",
		"GET /x HTTP/1.1\r\n\r\n",
		"get http://h/ HTTP/1.1\r\n\r\n",
		"GET http://h%41/ HTTP/1.1\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		tg, err := parseForwardHead(head)
		if err != nil {
			return
		}
		if err := checkHostPort(tg.addr(), false); err != nil {
			t.Fatalf("destination %q from %q: %v", tg.addr(), head, err)
		}
		if tg.host != strings.ToLower(tg.host) {
			t.Fatalf("host %q is not lower case", tg.host)
		}
		if tg.connect {
			return
		}
		// Where the idle relay takes the request for this destination
		// itself, net/http reads the same method, path and host in it.
		key := wayKey{host: tg.host, port: tg.port, kind: wayPlain}
		end := headEnd(head, 0)
		if end < 0 {
			return
		}
		h, err := parseRequestFor(head[:end], &key)
		if err != nil {
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head[:end])))
		if err != nil {
			t.Fatalf("the relay takes %q, net/http refuses it: %v", head[:end], err)
		}
		if req.Method != h.method || req.URL.Path != h.path || !key.names(req.URL.Host) ||
			string(h.origin) != req.URL.RequestURI() {
			t.Fatalf("relay %s %q (origin %q), net/http %s %q %q (%q)", h.method, h.path, h.origin,
				req.Method, req.URL.Host, req.URL.Path, req.URL.RequestURI())
		}
	})
}

// FuzzParseResolve: an entry parses to two dialable addresses or fails
// with an error naming it.
func FuzzParseResolve(f *testing.F) {
	for _, s := range []string{
		"api.example.test:443=127.0.0.1:8443", "api.example.test:443=127.0.0.1", "[::1]:80=[::1]:81",
		"a:1=b", "a=b", "a:0=b:1", ":443=x", "a:443=", "a:443==b", "A.EXAMPLE:443=::1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		from, to, err := ParseResolve(s)
		if err != nil {
			if !strings.Contains(err.Error(), "resolve") {
				t.Fatalf("error %q does not name the entry", err)
			}
			return
		}
		for _, a := range []string{from, to} {
			if _, _, err := net.SplitHostPort(a); err != nil || checkHostPort(a, false) != nil {
				t.Fatalf("%q from %q is not host:port", a, s)
			}
		}
	})
}
