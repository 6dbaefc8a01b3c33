package inject

import (
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// tcpDir is one direction of a proxied connection, and the [Stream] its
// fault acts on. Its methods run on the direction's own goroutine, except
// kick (through fast) and the counters.
type tcpDir struct {
	c        *tcpConn
	dir      Direction
	src, dst *net.TCPConn
	// fast is true while the copier may be on the fast path: changed
	// kicks only those. kicked tells the copier to leave it; sysMu is
	// held around the fast path's flag check and read, so a kick can wait
	// out a read in flight.
	fast      atomic.Bool
	kicked    atomic.Bool
	sysMu     sync.Mutex
	forwarded atomic.Int64 // since the connection opened
	lined     atomic.Int64 // in the delay line, not yet forwarded
	// applying is the rule whose fault acts on this direction, and base
	// what forwarded plus lined was when it started to: Forwarded counts
	// from there, so a rule that starts on a connection already carrying
	// traffic (a pooled one) counts its bytes from its start.
	applying *rules.State
	base     int64
	rnd      *rand.Rand   // created on first use
	holding  *rules.State // the rule whose fault is handling a chunk
	readAt   time.Time    // when the chunk being handled was read
	line     *delayLine   // latency's queue, while it has one
}

// errSwitch tells the direction's loop to decide its path again.
var errSwitch = errors.New("switch path")

// pump copies the direction until its source ends, passes a clean EOF on
// as a half-close, and ends the whole connection on anything else.
func (d *tcpDir) pump() error {
	err := d.loop()
	if err == nil {
		// What the delay line still holds goes before the FIN.
		err = d.flush()
	}
	switch {
	case err == nil:
		// Half-close: the peer may still send the other way.
		_ = d.dst.CloseWrite()
		return nil
	case errors.Is(err, ErrConnEnded), errors.Is(err, net.ErrClosed):
		// A fault or the other direction ended the connection.
		d.c.end(false)
		_ = d.flush() // returns at once: the line's writer sees the end
		return nil
	default:
		d.c.end(isReset(err))
		_ = d.flush()
		return err
	}
}

// loop alternates between the fast path (splice, while no rule applies to
// the connection) and the slow path (chunk by chunk through the fault). A
// kick moves a fast copier over; the slow path moves back by itself.
func (d *tcpDir) loop() error {
	table := d.c.p.pe.table
	for {
		// Store fast and clear kicked before loading the set: a
		// concurrent change either sees fast and kicks, or swapped the
		// set before the load below.
		d.fast.Store(true)
		d.kicked.Store(false)
		if _, ok := d.fault(table.Load()); !ok {
			if err := d.fastCopy(); err != errSwitch {
				return err
			}
			continue
		}
		d.fast.Store(false)
		if err := d.slow(); err != errSwitch {
			return err
		}
		// Bytes still in the delay line go before the fast path's.
		if err := d.flush(); err != nil {
			return err
		}
	}
}

// fault returns the stream fault that acts on this direction under s, if
// any: a fault with another direction leaves this one to the proxy.
func (d *tcpDir) fault(s *rules.Set) (StreamFault, bool) {
	m, ok := d.c.decide(s)
	var sf StreamFault
	if ok {
		sf, ok = m.Fault.(StreamFault)
		ok = ok && actsOn(m.Fault, d.dir)
	}
	if !ok {
		d.applying = nil
		return nil, false
	}
	if m.State != d.applying {
		d.applying, d.base = m.State, d.forwarded.Load()+d.lined.Load()
	}
	d.holding = m.State
	return sf, true
}

// slow reads chunks and hands each to the fault that applies, until no
// rule applies to the connection (errSwitch), EOF (nil) or an error.
func (d *tcpDir) slow() error {
	table := d.c.p.pe.table
	bp := d.c.p.bufs.Get().(*[]byte)
	defer d.c.p.bufs.Put(bp)
	buf := *bp
	for {
		n, err := d.src.Read(buf)
		d.readAt = time.Now()
		if n > 0 {
			if err := d.chunk(buf[:n]); err != nil {
				return err
			}
		}
		switch {
		case err == nil:
		case err == io.EOF:
			// The fault sees the end too (an empty chunk): a held
			// stream holds its FIN as well.
			return d.chunk(nil)
		case errors.Is(err, os.ErrDeadlineExceeded):
			// A deadline kick (see kickWakes) that raced with the switch
			// to this path.
			if err := d.src.SetReadDeadline(time.Time{}); err != nil {
				return err
			}
			return errSwitch
		default:
			return err
		}
		if _, ok := d.fault(table.Load()); !ok {
			return errSwitch
		}
	}
}

// chunk hands p to the fault that acts on this direction, or forwards it.
func (d *tcpDir) chunk(p []byte) error {
	if sf, ok := d.fault(d.c.p.pe.table.Load()); ok {
		return sf.Chunk(d, p)
	}
	return d.Write(p)
}

// Dir implements [Stream].
func (d *tcpDir) Dir() Direction { return d.dir }

// Write implements [Stream].
func (d *tcpDir) Write(p []byte) error {
	if len(p) == 0 { // the end-of-stream chunk: nothing to send
		return nil
	}
	if d.dst == nil { // a connect fault, before the upstream is dialled
		return errors.New("write before the upstream is connected")
	}
	// Bytes in the delay line were read first: they go first.
	if err := d.flush(); err != nil {
		return err
	}
	n, err := d.dst.Write(p)
	d.forwarded.Add(int64(n))
	return err
}

// Forwarded implements [Stream]: bytes forwarded since the fault's rule
// started to apply to this direction (see base). Bytes a previous rule
// left in the delay line are not counted when they go out.
func (d *tcpDir) Forwarded() int64 { return d.forwarded.Load() + d.lined.Load() - d.base }

// Discard implements [Stream]: the bytes were read and are simply not
// written.
func (d *tcpDir) Discard([]byte) {}

// Sleep implements [Stream]. It wakes early when the fault that called it
// no longer applies, so a halt or an expired rule releases a sleeping
// (latency) or paced (bandwidth) stream at once.
func (d *tcpDir) Sleep(t time.Duration) error {
	if t <= 0 {
		return nil
	}
	timer := time.NewTimer(t)
	defer timer.Stop()
	_, err := d.waitWhile(d.holding, timer.C)
	return err
}

// holdPoll caps a wait in Hold when the held rule has a TTL, so that it
// lets go soon after expiry even if nobody sweeps the table.
const holdPoll = time.Second

// Hold implements [Stream]. While it waits, this direction reads nothing:
// the peer's bytes stay in kernel buffers.
func (d *tcpDir) Hold(limit time.Duration) (bool, error) {
	var deadline <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		deadline = t.C
	}
	return d.waitWhile(d.holding, deadline)
}

// waitWhile waits while the rule held applies to the connection, until
// deadline fires (stillApplies true) or the connection ends. It re-decides
// on every rule change and soon after the rule's expiry, so a halt, a
// removal or a TTL ends the wait without anyone sweeping the table. Any
// goroutine of the connection may call it.
func (d *tcpDir) waitWhile(held *rules.State, deadline <-chan time.Time) (stillApplies bool, err error) {
	table := d.c.p.pe.table
	poll := time.NewTimer(holdPoll)
	defer poll.Stop()
	for {
		s := table.Load()
		if m, ok := d.c.decide(s); !ok || m.State != held {
			return false, nil
		}
		if exp := held.Expires(); !exp.IsZero() {
			poll.Reset(min(holdPoll, max(exp.Sub(table.Now()), time.Millisecond)))
		} else {
			poll.Reset(holdPoll)
		}
		select {
		case <-s.Changed():
		case <-poll.C:
		case <-d.c.done:
			return false, ErrConnEnded
		case <-deadline:
			return true, nil
		}
	}
}

// Reset implements [Stream].
func (d *tcpDir) Reset() error {
	d.c.end(true)
	return nil
}

// Close implements [Stream].
func (d *tcpDir) Close() error {
	d.c.end(false)
	return nil
}

// Rand implements [Stream]: a PCG seeded from the table's seed, the
// connection's number and the direction, so jitter replays exactly.
func (d *tcpDir) Rand() *rand.Rand {
	if d.rnd == nil {
		var dir uint64
		if d.dir == Response {
			dir = 1
		}
		seed := d.c.p.pe.table.Load().Seed()
		d.rnd = rand.New(rand.NewPCG(seed, uint64(d.c.n)<<1|dir))
	}
	return d.rnd
}
