package inject

import (
	"bufio"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The conformance upstreams speak a request/response protocol in which
// "committed" means the same for both proxies: the upstream received a
// whole request (TCP: a 4-byte big-endian length and that many bytes;
// HTTP: the headers and the whole body its Content-Length declares) and
// answered it.

// confUpstream is what both conformance upstreams record.
type confUpstream struct {
	mu          sync.Mutex
	committed   int
	bytes       int64 // request bytes received (TCP: the stream; HTTP: bodies)
	first, last time.Time
	commits     chan struct{} // one token per commit
	replySize   int
}

func newConfUpstream(replySize int) *confUpstream {
	return &confUpstream{commits: make(chan struct{}, 64), replySize: replySize}
}

func (u *confUpstream) got(n int) {
	if n == 0 {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	now := time.Now()
	if u.first.IsZero() {
		u.first = now
	}
	u.last = now
	u.bytes += int64(n)
}

func (u *confUpstream) commit() {
	u.mu.Lock()
	u.committed++
	u.mu.Unlock()
	u.commits <- struct{}{}
}

// snapshot returns the commits, the bytes received and the span between
// the first and the last byte.
func (u *confUpstream) snapshot() (committed int, bytes int64, span time.Duration) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.committed, u.bytes, u.last.Sub(u.first)
}

// lastSince returns how long after t the upstream received its last
// request byte (since mark).
func (u *confUpstream) lastSince(t time.Time) time.Duration {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.last.Sub(t)
}

// waitCommits waits until the upstream has committed n requests in all.
func (u *confUpstream) waitCommits(t *testing.T, n int) {
	t.Helper()
	timeout := time.NewTimer(ioTimeout)
	defer timeout.Stop()
	for {
		if c, _, _ := u.snapshot(); c >= n {
			return
		}
		select {
		case <-u.commits:
		case <-timeout.C:
			t.Fatalf("the upstream did not commit request %d within %v", n, ioTimeout)
		}
	}
}

type countingReader struct {
	r io.Reader
	u *confUpstream
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.u.got(n)
	return n, err
}

// startConfTCP serves the framed protocol; stop accepts every connection
// already established (see confListener), closes the listener and waits
// for every connection's goroutine. It does not close connections: called
// once the proxy has closed its side, it lets each one read what the
// proxy sent before its FIN, as an upstream would.
func startConfTCP(t *testing.T, u *confUpstream) (addr string, stop func()) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := newConfListener(l)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(3 * ioTimeout))
				u.serveFramed(c)
			}()
		}
	}()
	return ln.Addr().String(), func() {
		if err := ln.drain(); err != nil {
			t.Error(err)
		}
		_ = ln.Close()
		wg.Wait()
	}
}

func (u *confUpstream) serveFramed(c net.Conn) {
	r := countingReader{c, u}
	reply := make([]byte, 4+u.replySize)
	binary.BigEndian.PutUint32(reply, uint32(u.replySize))
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		if _, err := io.CopyN(io.Discard, r, int64(binary.BigEndian.Uint32(hdr[:]))); err != nil {
			return
		}
		u.commit()
		if _, err := c.Write(reply); err != nil {
			return
		}
	}
}

// confHTTPHandler commits a request whose whole body arrived.
func (u *confUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, err := io.Copy(io.Discard, countingReader{r.Body, u})
	if err != nil || n != max(r.ContentLength, 0) {
		return
	}
	u.commit()
	w.Header().Set("Content-Length", fmt.Sprint(u.replySize))
	_, _ = w.Write([]byte(strings.Repeat("r", u.replySize)))
}

// seen is what the client observed of one exchange.
type seen struct {
	end    string // whole, reset, eof, hang, refused
	n      int    // reply bytes received: TCP, of the stream; HTTP, of the body
	status int    // HTTP: the status, 0 when no response head arrived
	took   time.Duration
}

func (s seen) String() string {
	out := s.end
	if s.status != 0 {
		out += fmt.Sprintf(" status %d", s.status)
	}
	return out + fmt.Sprintf(" after %d reply bytes in %v", s.n, s.took.Round(time.Millisecond))
}

// confClient is one client connection to a proxy, speaking the upstream's
// protocol.
type confClient struct {
	proto   string
	c       net.Conn
	br      *bufio.Reader
	sendErr error // the request's write error, if any

	// fwd is the forward way of a client of a forward upstream ("" for a
	// client of an upstream's own proxy; see dialForward). A tunnel's
	// request waits in held until the CONNECT is answered (open).
	fwd     string
	open    bool
	held    []byte
	tlsConf *tls.Config
}

func dialConf(proto, addr string) (*confClient, error) {
	c, err := net.DialTimeout("tcp", addr, ioTimeout)
	if err != nil {
		return nil, err
	}
	return &confClient{proto: proto, c: c, br: bufio.NewReader(c)}, nil
}

// request is the wire form of a request with a body of size bytes (HTTP
// with size < 0: a GET without a body).
func confRequest(proto string, size int) []byte {
	if proto == ProtocolTCP {
		b := make([]byte, 4+size)
		binary.BigEndian.PutUint32(b, uint32(size))
		return b
	}
	if size < 0 {
		return []byte("GET /op HTTP/1.1\r\nHost: upstream\r\n\r\n")
	}
	return []byte(fmt.Sprintf("POST /op HTTP/1.1\r\nHost: upstream\r\nContent-Length: %d\r\n\r\n%s", size, strings.Repeat("q", size)))
}

// send writes a request; a write error shows in what receive sees.
func (cc *confClient) send(size int) {
	req := confRequest(cc.proto, size)
	switch {
	case cc.fwd == "http":
		req = absoluteForm(req)
	case cc.fwd != "" && !cc.open:
		cc.held = req // sent once the tunnel opens
		return
	}
	_ = cc.c.SetWriteDeadline(time.Now().Add(ioTimeout))
	_, cc.sendErr = cc.c.Write(req)
}

// silent reports whether nothing arrives for shortWait.
func (cc *confClient) silent() bool {
	_ = cc.c.SetReadDeadline(time.Now().Add(shortWait))
	_, err := cc.br.Peek(1)
	return errors.Is(err, os.ErrDeadlineExceeded)
}

// receive reads one reply of replySize bytes and says how it ended. A
// reset that the request's write met first leaves the reads a plain EOF
// (the socket's error is reported once): it is still a reset.
func (cc *confClient) receive(replySize int) seen {
	s := cc.read(replySize)
	if s.end == "eof" && s.n == 0 && s.status == 0 && endOf(cc.sendErr) == "reset" {
		s.end = "reset"
	}
	return s
}

func (cc *confClient) read(replySize int) seen {
	if cc.fwd != "" && cc.fwd != "http" && !cc.open {
		if end := cc.openTunnel(ioTimeout); end != "" {
			return seen{end: end}
		}
	}
	_ = cc.c.SetReadDeadline(time.Now().Add(ioTimeout))
	if cc.proto == ProtocolTCP {
		n, err := io.ReadFull(cc.br, make([]byte, 4+replySize))
		return seen{end: endOf(err), n: n}
	}
	resp, err := http.ReadResponse(cc.br, nil)
	if err != nil {
		return seen{end: endOf(err)}
	}
	defer resp.Body.Close()
	if cc.fwd != "" && refusedByProxy(resp) {
		return seen{end: "refused"}
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && n != resp.ContentLength {
		err = io.ErrUnexpectedEOF
	}
	return seen{end: endOf(err), n: int(n), status: resp.StatusCode}
}

func endOf(err error) string {
	switch {
	case err == nil:
		return "whole"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "hang"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		return "reset"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "eof"
	}
	return "error: " + err.Error()
}

func (cc *confClient) close() { _ = cc.c.Close() }
