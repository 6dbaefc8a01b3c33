package inject

import (
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// delayLineChunks bounds a direction's delay line: at most this many
// chunks (of up to tcpChunk bytes, so 1 MiB) wait in it. Like a TCP
// window, it caps throughput under latency at about its size per delay
// (10 MiB/s at 100 ms); reading stops while it is full, so the peer's
// bytes then wait in kernel buffers as they would behind a slow link.
const delayLineChunks = 32

// delayLine is latency's queue on one direction: the direction's goroutine
// reads and enqueues chunks stamped with their due time; the line's own
// goroutine writes each one when it is due. Reading goes on meanwhile, so
// a stream is late by the delay once, not once per chunk (Toxiproxy's
// "subtract the time already spent").
type delayLine struct {
	items chan delayItem
	done  chan struct{} // closed when the writer has returned
	err   error         // the writer's error; read after done
}

type delayItem struct {
	buf  *[]byte // from the proxy's pool; nil for the end of the stream
	n    int
	due  time.Time
	held *rules.State // the rule that delayed it
}

// Delay implements [Stream].
func (d *tcpDir) Delay(p []byte, t time.Duration) error {
	if d.line == nil {
		if t <= 0 {
			return d.Write(p)
		}
		d.line = &delayLine{items: make(chan delayItem, delayLineChunks), done: make(chan struct{})}
		go d.runLine(d.line)
	}
	l := d.line
	it := delayItem{due: d.readAt.Add(t), held: d.holding}
	if len(p) > 0 {
		it.buf = d.c.p.bufs.Get().(*[]byte)
		it.n = copy(*it.buf, p)
	}
	d.lined.Add(int64(it.n))
	select {
	case l.items <- it:
		return nil
	case <-l.done:
	case <-d.c.done:
	}
	d.lined.Add(-int64(it.n))
	if it.buf != nil {
		d.c.p.bufs.Put(it.buf)
	}
	if err := d.flush(); err != nil {
		return err
	}
	return ErrConnEnded
}

// flush closes the delay line, if there is one, and waits until the
// writer has delivered (or, once the connection ended, dropped) what it
// holds. It returns the writer's error.
func (d *tcpDir) flush() error {
	l := d.line
	if l == nil {
		return nil
	}
	d.line = nil
	close(l.items)
	<-l.done
	return l.err
}

// runLine writes each chunk of l when it is due, or at once when the rule
// that delayed it no longer applies. It is owned by the direction's
// goroutine, which waits for it in flush before it returns.
func (d *tcpDir) runLine(l *delayLine) {
	defer close(l.done)
	for it := range l.items {
		if l.err == nil {
			l.err = d.deliver(it)
			if l.err != nil && l.err != ErrConnEnded {
				// The direction's goroutine may be parked in a read:
				// end the connection so that it notices.
				d.c.end(isReset(l.err))
			}
		}
		// Delivered (counted in forwarded by deliver) or dropped.
		d.lined.Add(-int64(it.n))
		if it.buf != nil {
			d.c.p.bufs.Put(it.buf)
		}
	}
}

func (d *tcpDir) deliver(it delayItem) error {
	if wait := time.Until(it.due); wait > 0 {
		t := time.NewTimer(wait)
		_, err := d.waitWhile(it.held, t.C)
		t.Stop()
		if err != nil {
			return err
		}
	}
	if it.buf == nil {
		return nil
	}
	n, err := d.dst.Write((*it.buf)[:it.n])
	d.forwarded.Add(int64(n))
	return err
}
