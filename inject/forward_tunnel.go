package inject

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// tunnel is a CONNECT request the forward proxy has read and not yet
// answered. The destination's proxy answers it once it has decided, as a
// forward proxy that dials the upstream itself would: 200 once the tunnel
// is open (for a TCP destination, once the upstream is dialled), 502 when
// a fault refuses the dial or the dial fails. Until then a blackholed
// destination simply leaves the CONNECT unanswered.
type tunnel struct {
	c *net.TCPConn
	// pending holds what the client sent after its CONNECT head without
	// waiting for the answer; it goes first, through the faults.
	pending []byte
}

var established = []byte("HTTP/1.1 200 Connection established\r\n\r\n")

// open answers 200: from now on the connection carries the tunnel.
func (t *tunnel) open() error {
	_ = t.c.SetWriteDeadline(time.Now().Add(forwardAnswerTimeout))
	_, err := t.c.Write(established)
	_ = t.c.SetWriteDeadline(time.Time{})
	if err != nil {
		return fmt.Errorf("answer CONNECT: %w", err)
	}
	return nil
}

// refuse answers 502 as for a dial the upstream refused, and closes.
func (t *tunnel) refuse() {
	proxyAnswer{status: 502, perr: "connection_refused", detail: "connection refused"}.send(t.c)
}

// failDial answers as a proxy whose dial failed with err, and closes.
func (t *tunnel) failDial(err error) { dialAnswer(err).send(t.c) }

// dialAnswer is the proxy's answer to a request whose upstream dial
// failed with err, with the Proxy-Status error type that names why.
func dialAnswer(err error) proxyAnswer {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return proxyAnswer{status: 502, perr: "connection_refused", detail: "connection refused"}
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return proxyAnswer{status: 504, perr: "connection_timeout", detail: "connecting timed out"}
	case errors.As(err, &dnsErr):
		return proxyAnswer{status: 502, perr: "dns_error", detail: "the host name does not resolve"}
	case errors.Is(err, errTLSUpstream):
		return proxyAnswer{status: 502, perr: "tls_certificate_error", detail: err.Error()}
	}
	return proxyAnswer{status: 502, perr: "destination_unavailable", detail: "the destination cannot be reached"}
}

// tlsHandshakeTimeout bounds a TLS handshake, with the client of an
// intercepted tunnel or with its upstream.
const tlsHandshakeTimeout = 10 * time.Second

// openTunnel answers the CONNECT of a forward proxy's tunnel and, when
// it is intercepted, completes the TLS handshake with a certificate
// minted for the name the client asked for.
func (p *httpProxy) openTunnel(tc *trackedConn) error {
	if err := tc.tun.open(); err != nil {
		return err
	}
	if tc.tls == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(p.ctx, tlsHandshakeTimeout)
	defer cancel()
	if err := tc.tls.HandshakeContext(ctx); err != nil {
		return fmt.Errorf("TLS handshake with the client failed (does it trust the run CA?): %w", err)
	}
	return nil
}

// prefixConn reads pending before the connection's own bytes: what a
// forward proxy read past a CONNECT head belongs to the tunnel.
type prefixConn struct {
	net.Conn
	pending []byte
}

func (c *prefixConn) Read(b []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(b, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}
