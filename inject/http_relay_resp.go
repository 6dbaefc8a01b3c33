package inject

import (
	"bufio"
	"bytes"
)

// Framings of a response body.
const (
	bodyNone       = iota // HEAD, 1xx, 204, 304
	bodyLength            // Content-Length
	bodyChunked           // Transfer-Encoding: chunked
	bodyUntilClose        // neither: the upstream closes after it
)

// respHead is what the relay needs of a response head; raw points into
// the upstream connection's read buffer.
type respHead struct {
	raw     []byte
	status  int
	framing int
	length  int64
	close   bool // the upstream ends the connection after this response
	// dropLength: the head has Content-Length beside the chunked
	// encoding, which wins; the relay forwards it without the length, as
	// RFC 9112 §6.3 asks of an intermediary, so the client cannot take
	// the length instead.
	dropLength bool
}

// parseResponse reads a status line and the framing headers. The head is
// relayed as it is, hop-by-hop headers included: the relay keeps the
// upstream's framing, so they stay true for the client. A head net/http
// would refuse, or would frame otherwise, is errBadResponse (502, as
// ReverseProxy answers): the request was sent already, so there is no
// handing the exchange to net/http any more.
func parseResponse(raw []byte, head bool) (respHead, error) {
	h := respHead{raw: raw, length: -1}
	line, rest := nextLine(raw)
	line = trimEOL(line)
	// "HTTP/1.0" or "HTTP/1.1", a space, three digits, then the end or
	// a space.
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || (line[7] != '0' && line[7] != '1') ||
		line[8] != ' ' || (len(line) > 12 && line[12] != ' ') {
		return h, errBadResponse
	}
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return h, errBadResponse
		}
		h.status = h.status*10 + int(c-'0')
	}
	if h.status < 100 {
		// net/http reads 000-099 as a final status with a body; the
		// relay would take it for an interim one.
		return h, errBadResponse
	}
	http10 := line[7] == '0'
	h.close = http10 // the relay does not negotiate keep-alive
	var chunked, badTrailer bool
	var lenValue []byte
	for len(rest) > 0 {
		line, rest = nextLine(rest)
		if len(trimEOL(line)) == 0 {
			break
		}
		name, value, ok := splitHeader(line)
		if !ok || !validField(name, value) {
			return h, errBadResponse // obs-fold, no colon, bad bytes: net/http refuses them
		}
		switch {
		case foldEq(name, "Content-Length"):
			// Repeated only with the same text, as net/http allows.
			n, ok := parseLength(value)
			if !ok || (lenValue != nil && !bytes.Equal(value, lenValue)) {
				return h, errBadResponse
			}
			lenValue, h.length = value, n
		case foldEq(name, "Transfer-Encoding"):
			// Exactly one, exactly "chunked", as net/http: with
			// any other coding the body's end is unknown.
			if chunked || !foldEq(value, "chunked") {
				return h, errBadResponse
			}
			chunked = true
		case foldEq(name, "Connection"):
			// An option that is no token ("close x") may read as
			// close elsewhere: closing is always safe.
			for tok := range bytes.SplitSeq(value, []byte{','}) {
				tok = bytes.Trim(tok, " \t")
				if foldEq(tok, "close") || !validField(tok, nil) {
					h.close = true
				}
			}
		case foldEq(name, "Trailer"):
			badTrailer = badTrailer || !trailerNames(value)
		}
	}
	if chunked && (http10 || badTrailer) {
		// HTTP/1.0 with a coding, which net/http ignores (reading to
		// the close) while a client honouring it would not: the relay
		// cannot make both agree. A trailer announcing framing
		// headers, which net/http refuses.
		return h, errBadResponse
	}
	h.dropLength = chunked && lenValue != nil
	switch {
	case head || h.status < 200 || h.status == 204 || h.status == 304:
		h.framing = bodyNone
	case chunked:
		h.framing = bodyChunked
	case h.length >= 0:
		h.framing = bodyLength
	default:
		h.framing, h.close = bodyUntilClose, true
	}
	return h, nil
}

// trailerNames reports whether a Trailer header names no framing header,
// which net/http refuses.
func trailerNames(v []byte) bool {
	for tok := range bytes.SplitSeq(v, []byte{','}) {
		tok = bytes.Trim(tok, " \t")
		if foldEq(tok, "Content-Length") || foldEq(tok, "Transfer-Encoding") || foldEq(tok, "Trailer") {
			return false
		}
	}
	return true
}

// writeHead writes the response head to w, without its Content-Length
// lines if dropLength.
func (h *respHead) writeHead(w *bufio.Writer) error {
	if !h.dropLength {
		_, err := w.Write(h.raw)
		return err
	}
	line, rest := nextLine(h.raw) // the status line
	if _, err := w.Write(line); err != nil {
		return err
	}
	for len(rest) > 0 {
		line, rest = nextLine(rest)
		if name, _, ok := splitHeader(line); ok && foldEq(name, "Content-Length") {
			continue
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// readResponseHead waits for the final response head, passing interim
// (1xx) responses on to the client.
func (r *relay) readResponseHead(u *upConn, head bool) (respHead, error) {
	for {
		raw, err := peekHead(u.br, nil)
		if err != nil {
			return respHead{}, err
		}
		rh, err := parseResponse(raw, head)
		if err != nil || rh.status >= 200 {
			return rh, err
		}
		if rh.status == 101 { // never asked for: requests with Upgrade go to net/http
			return rh, errBadResponse
		}
		err = rh.writeHead(r.bw)
		_, _ = u.br.Discard(len(raw))
		if err == nil {
			err = r.bw.Flush()
		}
		if err != nil {
			return rh, err
		}
	}
}

// badGateway answers 502 as ReverseProxy's error handler does; it
// reports whether the answer reached the client's connection.
func (r *relay) badGateway(closing bool) bool {
	msg := "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"
	if closing {
		msg = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
	}
	_, _ = r.bw.WriteString(msg)
	return r.bw.Flush() == nil
}
