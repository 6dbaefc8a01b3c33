package inject

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Bounds of what a forward proxy reads before it knows the destination.
const (
	// maxForwardHead bounds the first request head of a connection (a
	// CONNECT request, or a plain request's head), which is read whole
	// before the destination is known: a longer one is answered 431.
	maxForwardHead = 8 << 10
	// forwardHeadTimeout bounds the wait for that head.
	forwardHeadTimeout = 30 * time.Second
	// forwardAnswerTimeout bounds writing the proxy's own answers.
	forwardAnswerTimeout = 5 * time.Second
)

// fwdTarget is the destination a request line names.
type fwdTarget struct {
	connect bool   // a CONNECT request: a tunnel
	host    string // lower case; an IPv6 address without brackets
	port    string
}

// addr is the destination as host:port.
func (t fwdTarget) addr() string { return net.JoinHostPort(t.host, t.port) }

// errForwardTarget is what parseForwardHead fails with: the request is
// not one a forward proxy serves.
var errForwardTarget = errors.New("not a forward-proxy request")

// parseForwardHead reads the request line of head, the first request of
// a client connection: "CONNECT host:port HTTP/1.x" opens a tunnel;
// "METHOD http://host[:port]/... HTTP/1.x" is a plain request in
// absolute form. Anything else (an origin-form request, an https:// or
// other scheme, user info in the authority) is refused with a reason.
func parseForwardHead(head []byte) (fwdTarget, error) {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	parts := strings.Split(string(line), " ")
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "HTTP/1.") || parts[0] == "" {
		return fwdTarget{}, fmt.Errorf("%w: malformed request line %.80q", errForwardTarget, line)
	}
	method, target := parts[0], parts[1]
	for _, c := range method {
		if c < 'A' || c > 'Z' {
			return fwdTarget{}, fmt.Errorf("%w: malformed method %.20q", errForwardTarget, method)
		}
	}
	if method == "CONNECT" {
		t, err := splitAuthority(target, "")
		if err != nil {
			return fwdTarget{}, fmt.Errorf("%w: CONNECT %.80q: %w", errForwardTarget, target, err)
		}
		t.connect = true
		return t, nil
	}
	auth, ok := absoluteAuthority(target)
	if !ok {
		return fwdTarget{}, fmt.Errorf("%w: the target %.80q is not an absolute http:// URL "+
			"(a forward proxy takes http://host/path, and CONNECT host:port for anything else)", errForwardTarget, target)
	}
	t, err := splitAuthority(auth, "80")
	if err != nil {
		return fwdTarget{}, fmt.Errorf("%w: %.80q: %w", errForwardTarget, target, err)
	}
	return t, nil
}

// absoluteAuthority returns the authority of an absolute-form http://
// target (the scheme in any case), if target is one with a path.
func absoluteAuthority(target string) (string, bool) {
	const scheme = "http://"
	if len(target) <= len(scheme) || !strings.EqualFold(target[:len(scheme)], scheme) {
		return "", false
	}
	rest := target[len(scheme):]
	auth, _, _ := strings.Cut(rest, "/")
	auth, _, _ = strings.Cut(auth, "?")
	if auth == "" || strings.ContainsAny(auth, "@#") {
		return "", false
	}
	return auth, true
}

// splitAuthority splits host[:port]; defPort, when not empty, is the
// port of an authority without one (CONNECT requires a port).
func splitAuthority(auth, defPort string) (fwdTarget, error) {
	host, port, err := net.SplitHostPort(auth)
	if err != nil {
		host, port = auth, defPort
		if h, ok := strings.CutPrefix(auth, "["); ok && strings.HasSuffix(h, "]") {
			host = strings.TrimSuffix(h, "]")
		} else if strings.Contains(auth, ":") {
			defPort = ""
		}
		if defPort == "" {
			return fwdTarget{}, errors.New("want host:port")
		}
	}
	host = strings.ToLower(host)
	if err := checkHostPort(net.JoinHostPort(host, port), false); err != nil {
		return fwdTarget{}, err
	}
	n, _ := strconv.Atoi(port)
	return fwdTarget{host: host, port: strconv.Itoa(n)}, nil
}

// proxyAnswer is an answer the forward proxy gives itself, with a
// Proxy-Status header (RFC 9209) naming what went wrong, so that a
// client can tell it from the upstream's.
type proxyAnswer struct {
	status int
	// perr is the Proxy-Status error type: connection_refused,
	// destination_ip_prohibited, http_request_error, ...
	perr   string
	detail string
}

// bytes is the answer's wire form; it closes the connection.
func (a proxyAnswer) bytes() []byte {
	body := "mcpchaos forward proxy: " + a.detail + "\n"
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"+
		"Proxy-Status: mcpchaos; error=%s; details=%s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		a.status, statusText(a.status), a.perr, strconv.Quote(a.detail), len(body), body)
}

// send writes the answer (bounded by forwardAnswerTimeout) and closes c.
func (a proxyAnswer) send(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(forwardAnswerTimeout))
	_, _ = c.Write(a.bytes())
	closeGently(c)
}

// closeGently ends c with a FIN after what was written, and lets unread
// request bytes go without turning the close into a RST before the
// client read the answer: half-close, then drain briefly.
func closeGently(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		var buf [512]byte
		for range 16 {
			if _, err := c.Read(buf[:]); err != nil {
				break
			}
		}
	}
	_ = c.Close()
}

func statusText(code int) string {
	switch code {
	case 400:
		return "Bad Request"
	case 403:
		return "Forbidden"
	case 431:
		return "Request Header Fields Too Large"
	case 502:
		return "Bad Gateway"
	case 504:
		return "Gateway Timeout"
	}
	return "Error"
}
