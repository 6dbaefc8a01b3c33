package inject

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// forwardCut sends the request on a fresh connection and stops before it
// is whole, then closes that connection (FIN): the upstream never has a
// complete request, so it cannot act on it. With a body longer than limit
// bytes, the upstream gets the head and limit bytes of the body (a body
// shorter than its Content-Length, or a chunked one without its last
// chunk). Otherwise, the body fitting under the limit or there being
// none, the upstream gets the head without its final CRLF.
func (x *httpExchange) forwardCut(limit int64) error {
	out := x.outRequest(x.ctx, 0)
	head := cutHead(out, x.p.hostHeader)
	conn, err := x.p.dialUp(x.ctx)
	if err != nil {
		return fmt.Errorf("forward to %s: %w", x.p.target, err)
	}
	defer conn.Close()
	w := deadlineWriter{conn}
	n := out.ContentLength
	if n >= 0 && n <= limit { // nothing to cut in the body: cut the head
		_, err = w.Write(head[:len(head)-2])
	} else if _, err = w.Write(head); err == nil {
		buf := x.p.bufs.Get()
		defer x.p.bufs.Put(buf)
		body := io.LimitReader(out.Body, limit)
		if n < 0 {
			err = copyChunks(w, body, buf)
		} else {
			_, err = io.CopyBuffer(w, body, buf)
		}
	}
	if err != nil {
		return fmt.Errorf("forward to %s: %w", x.p.target, err)
	}
	return errRequestCut
}

// cutHead is the head of out as it goes upstream, framed by its
// Content-Length or, when that is unknown, chunked; the connection it
// goes on carries nothing else.
func cutHead(out *http.Request, host string) []byte {
	h := out.Header.Clone()
	h.Del("Expect") // nobody would wait for 100 Continue
	if h.Get("User-Agent") == "" {
		h.Del("User-Agent")
	}
	h.Del("Content-Length")
	switch {
	case out.ContentLength > 0:
		h.Set("Content-Length", strconv.FormatInt(out.ContentLength, 10))
	case out.ContentLength < 0:
		h.Set("Transfer-Encoding", "chunked")
	}
	h.Set("Connection", "close")
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", out.Method, out.URL.RequestURI(), host)
	_ = h.Write(&b) // a bytes.Buffer does not fail
	b.WriteString("\r\n")
	return b.Bytes()
}

// copyChunks writes what r yields as chunks of a chunked body, without
// the last (empty) chunk that would complete it.
func copyChunks(w io.Writer, r io.Reader, buf []byte) error {
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := fmt.Fprintf(w, "%x\r\n%s\r\n", n, buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// deadlineWriter gives each write to the upstream its own deadline: an
// upstream that stops reading cannot stall a cut exchange for good.
type deadlineWriter struct{ c net.Conn }

func (w deadlineWriter) Write(p []byte) (int, error) {
	_ = w.c.SetWriteDeadline(time.Now().Add(dialTimeout))
	return w.c.Write(p)
}
