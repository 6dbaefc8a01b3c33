package inject

import (
	"bufio"
	"bytes"
	"errors"
	"net/url"
)

// The idle relay reads only what it must of each message head: the
// request line, the status line and the headers that decide framing and
// hop-by-hop handling. Anything unusual is left to net/http (requests) or
// treated as an upstream failure (responses), so the parser stays small.

var (
	// errSlowPath: the request is valid HTTP the relay does not handle
	// itself; the connection goes to the net/http server.
	errSlowPath = errors.New("request needs the net/http path")
	// errBadResponse: the upstream sent a response head the relay cannot
	// frame.
	errBadResponse = errors.New("malformed response head from upstream")
)

// maxListed bounds the names a Connection header lists, and the
// X-Forwarded-For lines, that the relay handles (more go the slow way).
const maxListed = 4

// peekHead returns the head at the start of br, up to and including its
// blank line, without consuming it: the caller may still hand every byte
// to net/http. A head that does not fit br's buffer returns errSlowPath.
// partial, if not nil, is called once before waiting for the rest of a
// head that has begun to arrive.
func peekHead(br *bufio.Reader, partial func()) ([]byte, error) {
	from := 0
	for {
		b, _ := br.Peek(br.Buffered())
		if i := headEnd(b, from); i >= 0 {
			return b[:i], nil
		}
		if len(b) == br.Size() {
			return nil, errSlowPath
		}
		from = max(len(b)-3, 0) // a terminator may straddle the next read
		if partial != nil && len(b) > 0 {
			partial()
			partial = nil
		}
		if _, err := br.Peek(len(b) + 1); err != nil {
			return nil, err
		}
	}
}

// headEnd returns the end of the blank line (CRLF or bare LF, as net/http
// accepts) that ends the head in b, or -1.
func headEnd(b []byte, from int) int {
	i := from
	for {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
		if i < len(b) && b[i] == '\n' {
			return i + 1
		}
		if i+1 < len(b) && b[i] == '\r' && b[i+1] == '\n' {
			return i + 2
		}
	}
}

// reqHead is what the relay needs of a request head. Its slices point
// into the client's read buffer and are valid until the next read.
type reqHead struct {
	raw []byte // the whole head
	// origin, for a request in absolute form to a forward proxy, is its
	// target in origin form (path and query), which goes upstream
	// instead; nil otherwise.
	origin  []byte
	method  string
	path    string // decoded, as http.Request.URL.Path
	bodyLen int64  // Content-Length; 0 without a body; -1 when chunked
	close   bool   // the client asked to close after this exchange

	conn  [maxListed][]byte // names the Connection header lists
	nconn int
	xff   [maxListed][]byte // prior X-Forwarded-For values
	nxff  int
}

// parseRequest reads head; errSlowPath means "valid or not, let net/http
// decide": HTTP/1.0, CONNECT and absolute targets, Expect, Upgrade, Te,
// Trailer, unusual framing, bare LF, folded or odd header lines.
//
// The relay forwards a head as it came, so it must frame the request
// exactly as net/http, and any server behind it, would: a request whose
// framing two parsers could read differently is how a second request
// gets smuggled inside the first one's body (RFC 9112 §11.2). Whatever
// the relay is not sure of therefore goes to the net/http server, which
// applies Go's strict framing (and answers 400 or 501 to what it
// rejects) and whose ReverseProxy forwards the request re-framed, with
// one Content-Length or chunked encoding and no trace of the other. The
// relay does not answer 400 itself, so that a request gets the same
// answer on either path: the relay stays an optimisation.
func parseRequest(raw []byte) (reqHead, error) { return parseRequestFor(raw, nil) }

// parseRequestFor is parseRequest for the plain-HTTP destination dest of
// a forward proxy (nil: an upstream of its own): the target must be in
// absolute form naming dest (http://host[:port]/...), and h.origin is
// its origin form. A target naming another host, or in origin form, goes
// to net/http, which sends it to the forward proxy's other destination.
func parseRequestFor(raw []byte, dest *wayKey) (reqHead, error) {
	h := reqHead{raw: raw}
	line, rest := nextLine(raw)
	if !bytes.HasSuffix(line, []byte("\r\n")) {
		return h, errSlowPath
	}
	line = trimEOL(line)
	sp := bytes.IndexByte(line, ' ')
	// The version's space must not be the method's ("0 HTTP/1.1").
	if sp <= 0 || !bytes.HasSuffix(line, []byte(" HTTP/1.1")) || sp >= len(line)-len(" HTTP/1.1") {
		return h, errSlowPath
	}
	method, target := line[:sp], line[sp+1:len(line)-len(" HTTP/1.1")]
	for _, c := range method {
		if c < 'A' || c > 'Z' {
			return h, errSlowPath
		}
	}
	if dest != nil {
		origin, ok := dest.originOf(target)
		if !ok {
			return h, errSlowPath
		}
		h.origin, target = origin, origin
	}
	if len(target) == 0 || target[0] != '/' || string(method) == "CONNECT" {
		return h, errSlowPath
	}
	for _, c := range target {
		if c <= ' ' || c == 0x7f || c == '#' {
			return h, errSlowPath
		}
	}
	h.method = internMethod(method)
	if q := bytes.IndexByte(target, '?'); q >= 0 {
		target = target[:q]
	}
	h.path = string(target)
	if bytes.IndexByte(target, '%') >= 0 {
		p, err := url.PathUnescape(h.path)
		if err != nil {
			return h, errSlowPath
		}
		h.path = p
	}
	var hasHost, hasLen, chunked bool
	for len(rest) > 0 {
		line, rest = nextLine(rest)
		if len(trimEOL(line)) == 0 {
			// net/http takes a bare LF for the blank line too; the
			// relay wants CRLF on every line it forwards.
			if len(line) != 2 {
				return h, errSlowPath
			}
			break
		}
		name, value, ok := splitHeader(line)
		if !ok || !validHeader(line, name, value) {
			return h, errSlowPath // obs-fold, no colon, space before it, bad bytes, bare LF
		}
		switch {
		case foldEq(name, "Host"):
			if hasHost || !plainHost(value) {
				return h, errSlowPath
			}
			hasHost = true
		case foldEq(name, "Content-Length"):
			// A second one, even equal, a list, a sign or a value
			// too long: net/http decides.
			n, ok := parseLength(value)
			if !ok || hasLen {
				return h, errSlowPath
			}
			hasLen, h.bodyLen = true, n
		case foldEq(name, "Transfer-Encoding"):
			// Exactly one, exactly "chunked" (as net/http, which
			// refuses any other coding).
			if !foldEq(value, "chunked") || chunked {
				return h, errSlowPath
			}
			chunked = true
		case foldEq(name, "Connection"):
			if !h.connectionTokens(value) {
				return h, errSlowPath
			}
		case foldEq(name, "X-Forwarded-For"):
			if h.nxff == maxListed {
				return h, errSlowPath
			}
			h.xff[h.nxff] = value
			h.nxff++
		case foldEq(name, "Expect"), foldEq(name, "Upgrade"), foldEq(name, "Te"), foldEq(name, "Trailer"):
			return h, errSlowPath
		}
	}
	// Content-Length and Transfer-Encoding together, in either order:
	// net/http frames by the chunked encoding and drops the length; a
	// server behind the relay that took the length instead would read
	// the rest of the body as a request of its own.
	if !hasHost || (hasLen && chunked) {
		return h, errSlowPath
	}
	if chunked {
		h.bodyLen = -1
	}
	return h, nil
}

// connectionTokens records the Connection header's options.
func (h *reqHead) connectionTokens(v []byte) bool {
	for tok := range bytes.SplitSeq(v, []byte{','}) {
		tok = bytes.Trim(tok, " \t")
		switch {
		case !validField(tok, nil):
			return false // not a token: net/http may read it otherwise
		case len(tok) == 0, foldEq(tok, "keep-alive"):
		case foldEq(tok, "close"):
			h.close = true
		case foldEq(tok, "upgrade"), h.nconn == maxListed:
			return false
		default:
			h.conn[h.nconn] = tok
			h.nconn++
		}
	}
	return true
}

// dropped reports whether the relay leaves the header out of the
// forwarded request: hop-by-hop headers (those of RFC 7230 §6.1 and
// those the Connection header lists, as httputil.ReverseProxy removes
// them), and Host and X-Forwarded-For, which it writes itself.
// Transfer-Encoding stays: the relay forwards chunked bodies as they are.
func (h *reqHead) dropped(name []byte) bool {
	switch {
	case foldEq(name, "Host"), foldEq(name, "X-Forwarded-For"), foldEq(name, "Connection"),
		foldEq(name, "Proxy-Connection"), foldEq(name, "Keep-Alive"),
		foldEq(name, "Proxy-Authenticate"), foldEq(name, "Proxy-Authorization"):
		return true
	}
	for _, c := range h.conn[:h.nconn] {
		if bytes.EqualFold(name, c) {
			return true
		}
	}
	return false
}
