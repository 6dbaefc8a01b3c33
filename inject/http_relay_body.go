package inject

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"

	"github.com/mcpchaos/mcpchaos/internal/bufpool"
)

// errBadChunk: a chunked body whose framing the relay cannot follow.
var errBadChunk = errors.New("malformed chunked body")

// bodyCopier moves message bodies from a buffered reader to a buffered
// writer. Bytes already buffered join the head in the writer's buffer
// (one write for a small message); the writer is flushed before any read
// that may block, so a body streams as the sender produces it.
type bodyCopier struct {
	dst  *bufio.Writer
	raw  io.Writer // dst's underlying connection, for large bodies
	src  *bufio.Reader
	bufs bufpool.Pool
	sum  *bodySum // hashes the body's data (not its chunk framing), if set
	// splice, when both its sockets are set, moves a fixed-length body's
	// unbuffered bytes kernel to kernel (see spliceBody).
	splice spliceBody
}

// spliceBody names the two sockets under a body copy, so that once src's
// buffer is drained the rest of a fixed-length body can go from one
// socket to the other without passing through user space (splice(2) on
// Linux, as *net.TCPConn's ReadFrom does for a LimitedReader of another
// *net.TCPConn): a large upload or download through the idle relay costs
// what it costs through a plain proxy. The bytes moved are added to the
// client connection's counters (up: read from the client; else written
// to it), which the bypassed wrapper would have kept.
type spliceBody struct {
	dst, src *net.TCPConn
	client   *trackedConn
	up       bool
}

func (sp spliceBody) count(n int64) {
	switch {
	case sp.client == nil:
	case sp.up:
		sp.client.up.Add(n)
	default:
		sp.client.down.Add(n)
	}
}

// copyN copies exactly n bytes.
func (c *bodyCopier) copyN(n int64) error {
	if b := c.src.Buffered(); b > 0 && n > 0 {
		k := int(min(int64(b), n))
		p, _ := c.src.Peek(k)
		if _, err := c.dst.Write(p); err != nil {
			return err
		}
		if c.sum != nil {
			c.sum.add(p)
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
	if sp := c.splice; c.sum == nil && sp.dst != nil && sp.src != nil {
		// src's buffer is empty (drained above), so the socket itself
		// is where the body's next byte is.
		m, err := io.CopyN(sp.dst, sp.src, n)
		sp.count(m)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	buf := c.bufs.Get()
	defer c.bufs.Put(buf)
	// writerOnly hides ReadFrom: *net.TCPConn's would allocate a buffer
	// of its own for a reader it cannot splice from.
	var src io.Reader = io.LimitReader(c.src, n)
	if c.sum != nil {
		src = io.TeeReader(src, sumWriter{c.sum})
	}
	m, err := io.CopyBuffer(writerOnly{c.raw}, src, buf)
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
// (chunk-size lines, data, the last chunk and the trailer section) with
// net/http's rules (net/http/internal.chunkedReader and the body's
// trailer): what net/http would refuse is errBadChunk, found before the
// offending bytes are written, so that the receiver never gets a chunk
// the relay read differently. The caller then closes both connections.
func (c *bodyCopier) copyChunked() error {
	var excess int64
	for {
		line, err := c.line()
		if err != nil {
			return err
		}
		size, ok := chunkSize(line)
		if !ok {
			return errBadChunk
		}
		// net/http's bound on overhead (extensions, tiny chunks): 16
		// bytes a chunk plus twice its data; the last chunk is exempt.
		excess = max(excess+int64(len(line))-16-2*size, 0)
		if size > 0 && excess > 16<<10 {
			return errBadChunk
		}
		if _, err := c.dst.Write(line); err != nil {
			return err
		}
		if size == 0 {
			break
		}
		if err := c.copyN(size); err != nil {
			return err
		}
		if err := c.crlf(); err != nil {
			return err
		}
	}
	// The trailer section: header lines, then CRLF. net/http reads it
	// only if it ends within its read buffer; the relay's buffers are
	// the same size.
	for total := 0; ; {
		line, err := c.line()
		if err != nil {
			return err
		}
		if total += len(line); total > c.src.Size() {
			return errBadChunk
		}
		if string(line) != "\r\n" {
			name, value, ok := splitHeader(line)
			if !ok || !validHeader(line, name, value) {
				return errBadChunk
			}
		}
		if _, err := c.dst.Write(line); err != nil {
			return err
		}
		if len(line) == 2 {
			return nil
		}
	}
}

// crlf copies the CRLF that must follow a chunk's data.
func (c *bodyCopier) crlf() error {
	if c.src.Buffered() < 2 {
		if err := c.dst.Flush(); err != nil {
			return err
		}
	}
	b, err := c.src.Peek(2)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if b[0] != '\r' || b[1] != '\n' {
		return errBadChunk
	}
	_, err = c.dst.Write(b)
	_, _ = c.src.Discard(2)
	return err
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

// chunkSize parses a chunk-size line as net/http does: CRLF at the end
// and no other CR (a bare LF is refused since Go 1.24.2, being read
// differently by other servers), trailing blanks and any extension
// ignored, then hex digits only, nothing before them. The relay stops at
// 15 digits (net/http at 16) so that a size and its CRLF fit an int64.
func chunkSize(line []byte) (int64, bool) {
	if len(line) < 2 || line[len(line)-2] != '\r' || line[len(line)-1] != '\n' {
		return 0, false
	}
	line = line[:len(line)-2]
	if bytes.IndexByte(line, '\r') >= 0 {
		line = nil
	}
	line = bytes.TrimRight(line, " \t")
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
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

// sumWriter feeds a bodySum.
type sumWriter struct{ s *bodySum }

func (w sumWriter) Write(p []byte) (int, error) {
	w.s.add(p)
	return len(p), nil
}
