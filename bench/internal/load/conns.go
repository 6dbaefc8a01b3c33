package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"
)

// Probe is the round trip that checks a held connection works and, after
// a rule change, observes whether the fault reached it.
type Probe int

// Probes.
const (
	// EchoProbe writes one byte and reads it back (the echo upstream).
	EchoProbe Probe = iota
	// HTTPProbe makes one keep-alive GET (the HTTP upstream).
	HTTPProbe
)

// Conn is a connection held open through a target.
type Conn struct {
	c  net.Conn
	br *bufio.Reader
}

// roundTrip runs p once on c within deadline.
func (c *Conn) roundTrip(p Probe, deadline time.Time) error {
	if err := c.c.SetDeadline(deadline); err != nil {
		return err
	}
	switch p {
	case EchoProbe:
		if _, err := c.c.Write([]byte{'x'}); err != nil {
			return err
		}
		b, err := c.br.ReadByte()
		if err == nil && b != 'x' {
			err = fmt.Errorf("echo returned %q", b)
		}
		return err
	case HTTPProbe:
		if _, err := c.c.Write([]byte(keepAliveRequest)); err != nil {
			return err
		}
		return readResponse(c.br)
	}
	return fmt.Errorf("unknown probe %d", p)
}

// Open dials n connections to addr, par at a time, and checks each with
// one round trip of p, so that the proxy in between has dialled the
// upstream and settled into its steady state for that connection. On
// error it closes what it opened.
func Open(ctx context.Context, addr string, n, par int, p Probe) ([]*Conn, error) {
	d := &net.Dialer{Timeout: ioTimeout}
	conns := make([]*Conn, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range max(par, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c, err := openOne(ctx, d, addr, p)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("connection %d of %d to %s: %w", i+1, n, addr, err)
					}
					mu.Unlock()
					return
				}
				conns[i] = c
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		CloseConns(conns)
		return nil, firstErr
	}
	return conns, nil
}

func openOne(ctx context.Context, d *net.Dialer, addr string, p Probe) (*Conn, error) {
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	// 512 bytes is ample for the probes' replies and keeps the
	// generator's own memory small with thousands of connections.
	c := &Conn{c: nc, br: bufio.NewReaderSize(nc, 512)}
	if err := c.roundTrip(p, time.Now().Add(ioTimeout)); err != nil {
		_ = nc.Close()
		return nil, err
	}
	return c, nil
}

// CloseConns closes every non-nil connection.
func CloseConns(conns []*Conn) {
	for _, c := range conns {
		if c != nil {
			_ = c.c.Close()
		}
	}
}

// FireResult is what Fire observed.
type FireResult struct {
	// Last is when the last connection had its outcome, counted from the
	// t0 given to Fire.
	Last time.Duration
	// Answered connections completed the round trip normally (no fault);
	// Ended ones were ended by the proxy instead, Reset of them with a
	// RST (the rest with a FIN); Stuck ones had no outcome before the
	// limit.
	Answered, Ended, Reset, Stuck int
}

// Fire releases one round trip of p on every connection at once and
// reports when, relative to t0, the last of them had its outcome. Each
// connection is given until limit after the release.
func Fire(conns []*Conn, p Probe, t0 time.Time, limit time.Duration) FireResult {
	type outcome struct {
		at   time.Duration
		kind int
	}
	const (
		answered = iota
		ended
		reset
		stuck
	)
	out := make([]outcome, len(conns))
	release := make(chan struct{})
	var wg sync.WaitGroup
	deadline := time.Now().Add(limit)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-release
			err := c.roundTrip(p, deadline)
			o := outcome{at: time.Since(t0)}
			var ne net.Error
			switch {
			case err == nil:
				o.kind = answered
			case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
				// EPIPE: a RST arrived before the write.
				o.kind = reset
			case errors.As(err, &ne) && ne.Timeout():
				o.kind = stuck
			default: // EOF and its kin: the proxy closed the connection
				o.kind = ended
			}
			out[i] = o
		}()
	}
	close(release)
	wg.Wait()
	var r FireResult
	for _, o := range out {
		r.Last = max(r.Last, o.at)
		switch o.kind {
		case answered:
			r.Answered++
		case ended:
			r.Ended++
		case reset:
			r.Ended++
			r.Reset++
		case stuck:
			r.Stuck++
		}
	}
	return r
}
