package inject

import (
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// exchangeDecision is which rule a faulted exchange is under, re-made
// whenever the rule set changes or the rule expires. Once the fault no
// longer applies the exchange is released, for good: a halt, a removal or
// an expiry lets held, sleeping and paced exchanges alike go on at once.
// It is shared by the request's goroutine and the transport's goroutine
// that reads a paced request body, hence the lock.
type exchangeDecision struct {
	mu  sync.Mutex
	ev  *rules.Evaluator // not safe for concurrent use: only under mu
	set *rules.Set       // the set the current decision was made on
	m   rules.Match
	// next is a different rule that took over: it is already counted,
	// so it is applied next if nothing was forwarded or answered yet.
	next      *rules.Match
	released  bool
	releasedc chan struct{} // closed on release
	finished  bool          // the exchange ended; ev went back to its pool
}

func (d *exchangeDecision) match() rules.Match {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m
}

// superseded reports whether another rule took the exchange over.
func (d *exchangeDecision) superseded() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.next != nil
}

func (d *exchangeDecision) seed() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.set.Seed()
}

// takeNext makes the rule that took over the current one, un-releasing
// the exchange; it reports false when there is none.
func (d *exchangeDecision) takeNext() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.next == nil {
		return false
	}
	d.m, d.next = *d.next, nil
	d.released = false
	d.releasedc = make(chan struct{})
	return true
}

// finish ends the decision (no more evaluations) and returns the rule in
// force, for the exchange event.
func (d *exchangeDecision) finish() rules.Match {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.finished = true
	if !d.released {
		d.released = true
		close(d.releasedc)
	}
	return d.m
}

// watch returns what to wait on for the next decision: the set's change,
// the rule's expiry (a timer the caller stops; nil without one) and the
// release by another goroutine. ok is false once released.
func (d *exchangeDecision) watch(now time.Time) (changed <-chan struct{}, expiry *time.Timer, released <-chan struct{}, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released {
		return nil, nil, nil, false
	}
	if exp := d.m.State.Expires(); !exp.IsZero() {
		// A floor keeps a clock that disagrees with timers from
		// turning this into a busy loop.
		expiry = time.NewTimer(max(exp.Sub(now), time.Millisecond))
	}
	return d.set.Changed(), expiry, d.releasedc, true
}

// redecide evaluates the rules again for the exchange, with the same Env;
// the rule in force is passed as held so that it is not counted twice.
func (x *httpExchange) redecide() {
	d := &x.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released || d.finished {
		return
	}
	d.set = x.p.table.Load()
	m, ok := d.ev.Match(d.set, x.env, x.p.table.Now(), d.m.State)
	switch {
	case !ok:
	case m.State != d.m.State:
		d.next = &m
	default:
		d.m = m
		return
	}
	d.released = true
	close(d.releasedc)
}

// poll re-decides if the set changed or the rule expired since the last
// decision, without waiting, and reports whether the exchange is
// released. Copy loops call it between chunks.
func (x *httpExchange) poll() bool {
	d := &x.d
	d.mu.Lock()
	released, set, exp := d.released, d.set, d.m.State.Expires()
	d.mu.Unlock()
	if released {
		return true
	}
	stale := !exp.IsZero() && !x.p.table.Now().Before(exp)
	select {
	case <-set.Changed():
		stale = true
	default:
	}
	if !stale {
		return false
	}
	x.redecide()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.released
}

// wait blocks until fire fires (nil: never), the exchange is released,
// the client goes away or the proxy closes; fired reports the first.
// Every rule change and the rule's expiry wake it to re-decide.
func (x *httpExchange) wait(fire <-chan time.Time) (fired bool, err error) {
	for {
		changed, expiry, released, ok := x.d.watch(x.p.table.Now())
		if !ok {
			return false, nil
		}
		var expired <-chan time.Time
		if expiry != nil {
			expired = expiry.C
		}
		select {
		case <-fire:
			fired = true
		case <-x.r.Context().Done():
			err = x.clientGone()
		case <-x.p.done:
			err = ErrClosed
		case <-changed:
		case <-expired:
		case <-released:
		}
		if expiry != nil {
			expiry.Stop()
		}
		if fired {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		x.redecide()
	}
}

// Sleep implements [Exchange].
func (x *httpExchange) Sleep(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	_, err := x.wait(t.C)
	return err
}

// Hold implements [Exchange].
func (x *httpExchange) Hold(limit time.Duration) (bool, error) {
	var deadline <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		deadline = t.C
	}
	return x.wait(deadline)
}
