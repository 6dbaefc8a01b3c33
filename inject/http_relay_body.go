package inject

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errBadChunk: a chunked body whose framing the relay cannot follow.
var errBadChunk = errors.New("malformed chunked body")

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
}

// parseResponse reads a status line and the framing headers. The head is
// relayed as it is, hop-by-hop headers included: the relay keeps the
// upstream's framing, so they stay true for the client.
func parseResponse(raw []byte, head bool) (respHead, error) {
	h := respHead{raw: raw, length: -1}
	line, rest := nextLine(raw)
	line = trimEOL(line)
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' ||
		(len(line) > 12 && line[12] != ' ') {
		return h, errBadResponse
	}
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return h, errBadResponse
		}
		h.status = h.status*10 + int(c-'0')
	}
	h.close = line[7] == '0' // HTTP/1.0: the relay does not negotiate keep-alive
	var te, chunked bool
	for len(rest) > 0 {
		line, rest = nextLine(rest)
		if len(trimEOL(line)) == 0 {
			break
		}
		name, value, ok := splitHeader(line)
		if !ok {
			return h, errBadResponse
		}
		switch {
		case foldEq(name, "Content-Length"):
			n, ok := parseLength(value)
			if !ok || (h.length >= 0 && n != h.length) {
				return h, errBadResponse
			}
			h.length = n
		case foldEq(name, "Transfer-Encoding"):
			te, chunked = true, foldEq(value, "chunked")
		case foldEq(name, "Connection"):
			for tok := range bytes.SplitSeq(value, []byte{','}) {
				if foldEq(bytes.Trim(tok, " \t"), "close") {
					h.close = true
				}
			}
		}
	}
	switch {
	case head || h.status < 200 || h.status == 204 || h.status == 304:
		h.framing = bodyNone
	case chunked:
		h.framing = bodyChunked
	case te:
		h.framing, h.close = bodyUntilClose, true
	case h.length >= 0:
		h.framing = bodyLength
	default:
		h.framing, h.close = bodyUntilClose, true
	}
	return h, nil
}

// bodyCopier moves message bodies from a buffered reader to a buffered
// writer. Bytes already buffered join the head in the writer's buffer
// (one write for a small message); the writer is flushed before any read
// that may block, so a body streams as the sender produces it.
type bodyCopier struct {
	dst  *bufio.Writer
	raw  io.Writer // dst's underlying connection, for large bodies
	src  *bufio.Reader
	bufs bufferPool
}

// copyN copies exactly n bytes.
func (c *bodyCopier) copyN(n int64) error {
	if b := c.src.Buffered(); b > 0 && n > 0 {
		k := int(min(int64(b), n))
		p, _ := c.src.Peek(k)
		if _, err := c.dst.Write(p); err != nil {
			return err
		}
		_, _ = c.src.Discard(k)
		n -= int64(k)
	}
	if n == 0 {
		return nil
	}
	if err := c.dst.Flush(); err != nil {
		return err
	}
	buf := c.bufs.Get()
	defer c.bufs.Put(buf)
	// writerOnly hides ReadFrom: *net.TCPConn's would allocate a buffer
	// of its own for a reader it cannot splice from.
	m, err := io.CopyBuffer(writerOnly{c.raw}, io.LimitReader(c.src, n), buf)
	if err == nil && m < n {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// copyToEOF copies until the source ends (a close-delimited body).
func (c *bodyCopier) copyToEOF() error {
	if err := c.dst.Flush(); err != nil {
		return err
	}
	buf := c.bufs.Get()
	defer c.bufs.Put(buf)
	_, err := io.CopyBuffer(writerOnly{c.raw}, c.src, buf)
	return err
}

// copyChunked copies a chunked body as it is, following its framing
// (chunk-size lines, data, the last chunk and the trailer section).
func (c *bodyCopier) copyChunked() error {
	for {
		line, err := c.line()
		if err != nil {
			return err
		}
		size, ok := chunkSize(line)
		if !ok {
			return errBadChunk
		}
		if _, err := c.dst.Write(line); err != nil {
			return err
		}
		if size == 0 {
			break
		}
		if err := c.copyN(size + 2); err != nil { // data and its CRLF
			return err
		}
	}
	for {
		line, err := c.line()
		if err != nil {
			return err
		}
		if _, err := c.dst.Write(line); err != nil {
			return err
		}
		if len(trimEOL(line)) == 0 {
			return nil
		}
	}
}

// line reads one line, flushing dst first if it must wait for it. The
// line is valid until the next read.
func (c *bodyCopier) line() ([]byte, error) {
	if b, _ := c.src.Peek(c.src.Buffered()); bytes.IndexByte(b, '\n') < 0 {
		if err := c.dst.Flush(); err != nil {
			return nil, err
		}
	}
	return c.src.ReadSlice('\n')
}

// chunkSize parses a chunk-size line, extensions ignored.
func chunkSize(line []byte) (int64, bool) {
	line = trimEOL(line)
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.Trim(line, " \t")
	if len(line) == 0 || len(line) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range line {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		n = n<<4 | int64(c)
	}
	return n, true
}

type writerOnly struct{ io.Writer }

// internMethod avoids allocating a string for the common methods.
func internMethod(m []byte) string {
	switch string(m) {
	case "GET":
		return "GET"
	case "POST":
		return "POST"
	case "PUT":
		return "PUT"
	case "DELETE":
		return "DELETE"
	case "HEAD":
		return "HEAD"
	case "PATCH":
		return "PATCH"
	case "OPTIONS":
		return "OPTIONS"
	}
	return string(m)
}

// parseLength parses a Content-Length value (digits only, as net/http).
func parseLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
