package load

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"time"
)

// Via says how a load reaches its upstream through a forward proxy: in
// a CONNECT tunnel to Connect, or with request targets in absolute form
// naming Absolute (both host:port). The zero value speaks to the
// address as to the upstream itself.
type Via struct {
	Connect, Absolute string
}

// requests returns the keep-alive and the closing request.
func (v Via) requests() (keepAlive, closing []byte) {
	if v.Absolute == "" {
		return []byte(keepAliveRequest), []byte(closeRequest)
	}
	line := "GET http://" + v.Absolute + "/ HTTP/1.1\r\nHost: " + v.Absolute + "\r\n"
	return []byte(line + "\r\n"), []byte(line + "Connection: close\r\n\r\n")
}

// dial connects to addr and, for a tunnel, opens it: it writes the
// CONNECT request and reads the proxy's 200 head, nothing more (the
// upstream speaks only once asked).
func (v Via) dial(ctx context.Context, d *net.Dialer, addr string) (net.Conn, error) {
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil || v.Connect == "" {
		return c, err
	}
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", v.Connect, v.Connect); err != nil {
		_ = c.Close()
		return nil, err
	}
	// A byte at a time: what follows the head is the tunnel's.
	br := bufio.NewReaderSize(oneByte{c}, 512)
	if err := readHead(br); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("CONNECT %s: %w", v.Connect, err)
	}
	_ = c.SetDeadline(time.Time{})
	return c, nil
}

// oneByte reads at most one byte per call.
type oneByte struct{ c net.Conn }

func (o oneByte) Read(p []byte) (int, error) { return o.c.Read(p[:min(len(p), 1)]) }

// readHead reads a response head whose status must be 200.
func readHead(br *bufio.Reader) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if len(line) < 12 || string(line[9:12]) != "200" {
		return fmt.Errorf("%w: %q", errNotOK, line)
	}
	for range maxHeaderLines {
		if line, err = br.ReadSlice('\n'); err != nil || len(line) <= 2 {
			return err
		}
	}
	return fmt.Errorf("too many header lines")
}
