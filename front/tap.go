package front

import (
	"context"
	"errors"
	"io"
)

// tap reads a response body for a front. Passing, it returns the
// upstream's bytes as they come and reads a copy of them on the side, so
// streaming is untouched. Holding (a tamper rule is live), it returns
// each unit only once it is complete, as see rewrote it: the same bytes
// unless a rule changed them. A unit see drops is left out (an SSE event),
// or, with hang, the body stops there until the client goes (a JSON body:
// the host waits for its own deadline).
type tap struct {
	src   io.ReadCloser
	split splitter
	see   func(unit []byte) reply
	hold  bool
	hang  bool            // a dropped unit hangs the body (JSON)
	ctx   context.Context // the client's request, for hang

	buf  []byte
	out  []byte // held output not yet read
	err  error  // src's error, once out is drained
	stop bool   // a dropped unit hung the body
	unit func([]byte)
	raw  func([]byte)
}

// errDropped ends a body whose reply a tamper rule dropped, once the
// client is gone.
var errDropped = errors.New("mcpchaos: reply dropped by a tamper rule")

func newTap(ctx context.Context, src io.ReadCloser, split splitter, hold, hang bool, see func([]byte) reply) *tap {
	t := &tap{src: src, split: split, see: see, hold: hold, hang: hang, ctx: ctx}
	if hold {
		t.buf = make([]byte, 32<<10)
		t.unit = func(u []byte) {
			r := see(u)
			switch {
			case r.drop && t.hang:
				t.stop = true
			case r.drop:
			case r.out != nil:
				t.out = append(t.out, r.out...)
			default:
				t.out = append(t.out, u...)
			}
		}
		t.raw = func(b []byte) { t.out = append(t.out, b...) }
	} else {
		t.unit = func(u []byte) { see(u) }
		t.raw = func([]byte) {}
	}
	return t
}

func (t *tap) Read(p []byte) (int, error) {
	if !t.hold {
		n, err := t.src.Read(p)
		t.split.feed(p[:n], t.unit, t.raw)
		if err == io.EOF {
			t.split.end(t.unit, t.raw)
		}
		return n, err
	}
	for len(t.out) == 0 && t.err == nil && !t.stop {
		n, err := t.src.Read(t.buf)
		t.split.feed(t.buf[:n], t.unit, t.raw)
		if err == io.EOF {
			t.split.end(t.unit, t.raw)
		}
		t.err = err
	}
	if len(t.out) > 0 {
		n := copy(p, t.out)
		t.out = t.out[n:]
		if len(t.out) == 0 {
			t.out = nil
		}
		return n, nil
	}
	if t.stop {
		<-t.ctx.Done()
		return 0, errDropped
	}
	return 0, t.err
}

func (t *tap) Close() error { return t.src.Close() }
