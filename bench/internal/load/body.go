package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/upstream"
)

// Directions of a large-body HTTP exchange.
const (
	// Upload POSTs n bytes to upstream.SinkPath.
	Upload = "upload"
	// Download GETs n bytes from upstream.BytesPath.
	Download = "download"
)

// StatusError is a large-body exchange answered with a status other than
// 200: a proxy that refuses to carry the body (413), or one that gave up
// on the upstream's reply (502).
type StatusError struct{ Code int }

func (e *StatusError) Error() string { return "status " + strconv.Itoa(e.Code) }

// BodyResult is one large-body exchange.
type BodyResult struct {
	Bytes   int64
	Elapsed time.Duration
}

// MiBps is the transfer rate in MiB per second.
func (r BodyResult) MiBps() float64 { return float64(r.Bytes) / (1 << 20) / r.Elapsed.Seconds() }

// Body makes one HTTP/1.1 exchange with a body of n bytes on a new
// connection to addr (Connection: close): dir Upload sends it, Download
// receives it. It is timed from the first byte written to the answer's
// last byte, and must finish within limit. Any answer but a whole 200
// is an error; a status is a *StatusError. net/http parses the answer:
// its cost per byte is small next to moving 64 MiB, and it frames
// anything a proxy might send back (chunked, early close) exactly.
func Body(ctx context.Context, addr, dir string, n int64, limit time.Duration) (BodyResult, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	d := &net.Dialer{Timeout: ioTimeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return BodyResult{}, fmt.Errorf("%s: dial %s: %w", dir, addr, err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	t0 := time.Now()
	switch dir {
	case Upload:
		err = postBody(c, n)
	case Download:
		err = getBody(c, n)
	default:
		err = fmt.Errorf("unknown direction %q", dir)
	}
	if err != nil {
		return BodyResult{}, fmt.Errorf("%s of %d bytes via %s: %w", dir, n, addr, err)
	}
	return BodyResult{Bytes: n, Elapsed: time.Since(t0)}, nil
}

// getBody asks for n bytes and reads them all.
func getBody(c net.Conn, n int64) error {
	req := "GET " + upstream.BytesPath + strconv.FormatInt(n, 10) + " HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(c, 64<<10), nil)
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &StatusError{resp.StatusCode}
	}
	got, err := count(resp.Body)
	if err != nil {
		return fmt.Errorf("after %d of %d bytes: %w", got, n, err)
	}
	if got != n {
		return fmt.Errorf("got %d of %d bytes", got, n)
	}
	return nil
}

// postBody sends n bytes and reads the upstream's count of them. A proxy
// may answer before the body is sent (413) and then stop reading, so the
// answer is read concurrently: a refusal ends the write at once instead
// of leaving it blocked, and is reported whatever the write then says.
func postBody(c net.Conn, n int64) error {
	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() { // owned by postBody, which always receives from answered
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodPost})
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			_ = c.SetWriteDeadline(time.Unix(1, 0)) // stop sending what nobody reads
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, 64))
		answered <- answer{status: resp.StatusCode, body: string(b), err: err}
	}()

	werr := writeBody(c, n)
	a := <-answered
	switch {
	case a.err == nil && a.status != http.StatusOK:
		return &StatusError{a.status}
	case werr != nil:
		return fmt.Errorf("send body: %w", werr)
	case a.err != nil:
		return fmt.Errorf("read answer: %w", a.err)
	case a.body != strconv.FormatInt(n, 10):
		return fmt.Errorf("the upstream read %q bytes of %d", a.body, n)
	}
	return nil
}

// writeBody writes the request head and n bytes of zeros.
func writeBody(c net.Conn, n int64) error {
	head := "POST " + upstream.SinkPath + " HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n" +
		"Content-Type: application/octet-stream\r\nContent-Length: " + strconv.FormatInt(n, 10) + "\r\n\r\n"
	if _, err := io.WriteString(c, head); err != nil {
		return err
	}
	buf := make([]byte, upstream.BufSize)
	for left := n; left > 0; {
		k, err := c.Write(buf[:min(left, int64(len(buf)))])
		left -= int64(k)
		if err != nil {
			return fmt.Errorf("after %d of %d bytes: %w", n-left, n, err)
		}
	}
	return nil
}

// count reads r to its end in large reads and returns how many bytes it
// held. (io.Copy to io.Discard would read 8 KiB at a time.)
func count(r io.Reader) (int64, error) {
	buf := make([]byte, upstream.BufSize)
	var n int64
	for {
		k, err := r.Read(buf)
		n += int64(k)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
