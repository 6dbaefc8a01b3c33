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
	forwarded atomic.Int64
	rnd       *rand.Rand   // created on first use
	holding   *rules.State // the rule whose fault is handling a chunk
}

// errSwitch tells the direction's loop to decide its path again.
var errSwitch = errors.New("switch path")

// pump copies the direction until its source ends, passes a clean EOF on
// as a half-close, and ends the whole connection on anything else.
func (d *tcpDir) pump() error {
	err := d.loop()
	switch {
	case err == nil:
		// Half-close: the peer may still send the other way.
		_ = d.dst.CloseWrite()
		return nil
	case errors.Is(err, ErrConnEnded), errors.Is(err, net.ErrClosed):
		// A fault or the other direction ended the connection.
		d.c.end(false)
		return nil
	default:
		d.c.end(isReset(err))
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
		if _, ok := d.c.decide(table.Load()); !ok {
			if err := d.fastCopy(); err != errSwitch {
				return err
			}
			continue
		}
		d.fast.Store(false)
		if err := d.slow(); err != errSwitch {
			return err
		}
	}
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
		if _, ok := d.c.decide(table.Load()); !ok {
			return errSwitch
		}
	}
}

// chunk hands p to the fault that applies, or forwards it.
func (d *tcpDir) chunk(p []byte) error {
	m, ok := d.c.decide(d.c.p.pe.table.Load())
	if sf, isSF := m.Fault.(StreamFault); ok && isSF {
		d.holding = m.State
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
	n, err := d.dst.Write(p)
	d.forwarded.Add(int64(n))
	return err
}

// Forwarded implements [Stream].
func (d *tcpDir) Forwarded() int64 { return d.forwarded.Load() }

// Discard implements [Stream]: the bytes were read and are simply not
// written.
func (d *tcpDir) Discard([]byte) {}

// Sleep implements [Stream].
func (d *tcpDir) Sleep(t time.Duration) error {
	if t <= 0 {
		return nil
	}
	timer := time.NewTimer(t)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-d.c.done:
		return ErrConnEnded
	}
}

// holdPoll caps a wait in Hold when the held rule has a TTL, so that it
// lets go soon after expiry even if nobody sweeps the table.
const holdPoll = time.Second

// Hold implements [Stream]. While it waits, this direction reads nothing:
// the peer's bytes stay in kernel buffers.
func (d *tcpDir) Hold(limit time.Duration) (bool, error) {
	table := d.c.p.pe.table
	held := d.holding
	var deadline <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		deadline = t.C
	}
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
