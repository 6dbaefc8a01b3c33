package inject

import (
	"io"
	"time"
)

// minPause is the shortest pause a pacer takes for chunks that cross in
// less than that: below it, the debt is carried to the next chunk, so a
// fast rate does not cost a timer per buffer. A chunk that takes longer
// to cross (a slow rate) always waits until it is due, so that the last
// one is never early.
const minPause = 2 * time.Millisecond

// pacer spaces the bytes of one body so that byte n leaves no earlier than
// n/rate seconds after the first was read: a link of that rate, each chunk
// sent after the time it takes to cross it (the first one too). It keeps a
// schedule rather than sleeping per chunk, so time spent waiting on the
// peer counts towards it. Its sleeps are the exchange's: they end when the
// exchange is released, and pacing with them.
type pacer struct {
	x     *httpExchange
	rate  int64 // bytes per second
	chunk int64 // most bytes moved between pauses: a tenth of a second's worth
	start time.Time
	sent  int64
}

func newPacer(x *httpExchange, rate int64) *pacer {
	return &pacer{x: x, rate: rate, chunk: max(rate/10, 1)}
}

// wait accounts for n more bytes and sleeps until they are due.
func (p *pacer) wait(n int) error {
	if p.start.IsZero() {
		p.start = time.Now()
	}
	p.sent += int64(n)
	due := p.start.Add(time.Duration(float64(p.sent) / float64(p.rate) * float64(time.Second)))
	d := time.Until(due)
	if d >= minPause || d > 0 && time.Duration(n)*time.Second/time.Duration(p.rate) >= minPause {
		return p.x.Sleep(d)
	}
	return nil
}

// pacedBody is a request body read at a pacer's rate: the transport reads
// it as it writes to the upstream, which therefore sees a slow writer.
type pacedBody struct {
	io.ReadCloser
	pace *pacer
	done bool // released: read at full speed
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	p = p[:min(int64(len(p)), b.pace.chunk)]
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		if werr := b.pace.wait(n); werr != nil {
			return 0, werr
		}
		b.done = b.pace.x.poll()
	}
	return n, err
}
