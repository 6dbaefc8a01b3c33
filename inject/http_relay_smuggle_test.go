package inject

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

// smuggled is a request hidden in the body of another: a server that
// frames the outer request by its chunked encoding reads it as the next
// request on the connection.
const smuggled = "GET /hidden HTTP/1.1\r\nHost: h\r\n\r\n"

// smuggle builds a POST /a carrying headers (with %d for the length of
// the body, if wanted) and the body "0\r\n\r\n" + smuggled.
func smuggle(headers string) string {
	body := "0\r\n\r\n" + smuggled
	if strings.Contains(headers, "%d") {
		headers = fmt.Sprintf(headers, len(body))
	}
	return "POST /a HTTP/1.1\r\nHost: h\r\n" + headers + "\r\n" + body
}

// TestHTTPRelaySmuggling sends requests whose framing two parsers could
// read differently, each followed on the same connection by a last
// request, to a proxy whose upstream is a real net/http server (which,
// given both Transfer-Encoding and Content-Length, frames by the
// chunked encoding). Whatever the proxy does with them, every request
// the upstream executes must be one the proxy published an exchange
// event for: none may pass hidden inside another's body.
func TestHTTPRelaySmuggling(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		hidden    bool // the upstream should see /hidden, as a request of its own
	}{
		{"te-then-cl", smuggle("Transfer-Encoding: chunked\r\nContent-Length: %d\r\n"), true},
		{"cl-then-te", smuggle("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n"), true},
		{"te-case", smuggle("transfer-encoding: CHUNKED\r\ncontent-length: %d\r\n"), true},
		{"te-twice", smuggle("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\nContent-Length: %d\r\n"), false},
		{"te-list", smuggle("Transfer-Encoding: identity, chunked\r\nContent-Length: %d\r\n"), false},
		{"te-folded", smuggle("Transfer-Encoding: identity\r\n chunked\r\nContent-Length: %d\r\n"), false},
		{"te-space-before-colon", smuggle("Transfer-Encoding : chunked\r\nContent-Length: %d\r\n"), false},
		{"cl-twice-differing", smuggle("Content-Length: 5\r\nContent-Length: %d\r\n"), false},
		{"cl-list", smuggle("Content-Length: %d, 5\r\n"), false},
		{"cl-plus", smuggle("Content-Length: +%d\r\n"), false},
		{"bare-lf", strings.ReplaceAll(smuggle("Transfer-Encoding: chunked\r\nContent-Length: %d\r\n"), "\r\n", "\n"), false},
		{"chunk-size-space", "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5 ;x\r\nhello\r\n0\r\n\r\n", false},
		{"chunk-bad-crlf", "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX" + smuggled + "0\r\n\r\n", false},
		{"chunk-bare-lf", "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", false},
		{"trailer-request-line", "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + smuggled, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var seen []string // requests the upstream executed
			rig := newHTTPRig(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				mu.Lock()
				seen = append(seen, r.Method+" "+r.URL.Path)
				mu.Unlock()
				_, _ = io.WriteString(w, "ok")
			}))
			rc := dialRaw(t, rig)
			rc.send(t, tc.raw+"GET /last HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
			// Read every response until the proxy closes the connection.
			for {
				resp, err := http.ReadResponse(rc.br, nil)
				if err != nil {
					break
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			// Once the proxy is closed and the upstream has finished
			// every request it read, both lists are complete.
			if err := rig.p.close(); err != nil {
				t.Fatal(err)
			}
			rig.up.Close()
			var published []string
			for _, e := range rig.bus.Recent(1 << 10) {
				if e.Type == EventExchange {
					published = append(published, e.Method+" "+e.Path)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for _, s := range seen {
				i := slices.Index(published, s)
				if i < 0 {
					t.Fatalf("the upstream executed %q, which is no exchange event (upstream saw %q, events %q)", s, seen, published)
				}
				published = slices.Delete(published, i, i+1)
			}
			if got := slices.Contains(seen, "GET /hidden"); got != tc.hidden {
				t.Errorf("upstream saw /hidden: %v, want %v (upstream saw %q)", got, tc.hidden, seen)
			}
		})
	}
}
