package front

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// RecorderOptions configures a [Recorder]. The zero value is usable.
type RecorderOptions struct {
	// Grader grades calls and sessions; nil means [NoGrade].
	Grader Grader
	// Keep is how many ended calls the recorder remembers, and KeepBytes
	// about how many bytes of their text, structured content and
	// arguments; the oldest go first. Zero means 1024 calls and 64 MiB.
	Keep, KeepBytes int
	// Queue is how many ended calls and sessions may wait for the grader;
	// beyond it they are dropped and counted ([Recorder.Stats]). Zero
	// means 4096.
	Queue int
	// MaxOpen is how many calls may be open at once, across fronts and
	// reports; a call started beyond it is numbered when it ends and is
	// attributed no upstream traffic. A call open for longer than
	// Limits.CallTimeout (its end never reported: a wrapper killed) is
	// closed when another starts. Zero means 1024.
	MaxOpen int
	// Limits bound what the recorder's HTTP fronts parse and keep; its
	// MaxSessions is also how many sessions the recorder remembers.
	Limits Limits
	// Clock stamps what has no time of its own; nil means the system
	// clock.
	Clock  rules.Clock
	Logger zerolog.Logger
}

// Recorder is the [Sink] of the process that holds the fault layer: it
// numbers calls, has the registry attribute upstream traffic to each call
// while it is open, and, off the data path, grades what ended, remembers
// it and publishes it on the registry's bus (events call, session_open,
// session_close, and an injection for each tampered reply). It starts the
// HTTP fronts of mcp upstreams ([Recorder.NewFront]) and takes reports
// from `mcpchaos wrap` ([Recorder.Ingest]). Close it when done.
type Recorder struct {
	reg    *inject.Registry
	grader Grader
	opts   RecorderOptions

	mu       sync.Mutex
	closed   bool
	next     int                   // the last call number given
	open     map[callRef]*openCall // by session and seq
	sessions *sessionStore
	calls    *callRing

	queue   chan item
	dropped atomic.Uint64
	wg      sync.WaitGroup
}

// callRef names a call across fronts and reports.
type callRef struct {
	session string
	seq     int
}

// openCall is a call the registry attributes traffic to.
type openCall struct {
	n       int
	overlap int
	end     func()
	since   time.Time
}

// item is an ended call or a session change, on its way to the worker.
type item struct {
	call    *Call
	session *Session
	opened  bool // the session opened or was updated: it is not closing
	updated bool // the session was updated: no event
}

// NewRecorder returns a recorder over reg and starts its worker.
func NewRecorder(reg *inject.Registry, opts RecorderOptions) *Recorder {
	if opts.Grader == nil {
		opts.Grader = NoGrade{}
	}
	if opts.Keep <= 0 {
		opts.Keep = 1024
	}
	if opts.KeepBytes <= 0 {
		opts.KeepBytes = 64 << 20
	}
	if opts.Queue <= 0 {
		opts.Queue = 4096
	}
	if opts.MaxOpen <= 0 {
		opts.MaxOpen = 1024
	}
	if opts.Clock == nil {
		opts.Clock = rules.SystemClock{}
	}
	opts.Limits = opts.Limits.withDefaults()
	r := &Recorder{reg: reg, grader: opts.Grader, opts: opts, open: map[callRef]*openCall{},
		sessions: newSessionStore(opts.Limits.MaxSessions), calls: newCallRing(opts.Keep, opts.KeepBytes),
		queue: make(chan item, opts.Queue)}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.work()
	}()
	return r
}

// SessionOpened implements [Sink].
func (r *Recorder) SessionOpened(s Session) { r.send(item{session: &s, opened: true}) }

// SessionUpdated implements [Sink].
func (r *Recorder) SessionUpdated(s Session) { r.send(item{session: &s, opened: true, updated: true}) }

// SessionClosed implements [Sink].
func (r *Recorder) SessionClosed(s Session) { r.send(item{session: &s}) }

// CallStarted implements [Sink]: it numbers c and opens it in the
// registry, which attributes the traffic that begins from now on to it.
func (r *Recorder) CallStarted(c *Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ref := callRef{c.Session, c.Seq}
	if r.closed || r.open[ref] != nil {
		return
	}
	now := r.opts.Clock.Now()
	r.expireLocked(now) // O(MaxOpen), as the overlap below is
	if len(r.open) >= r.opts.MaxOpen {
		return // its traffic is attributed to no call; CallEnded numbers it
	}
	r.next++
	c.N = r.next
	oc := &openCall{n: c.N, overlap: 1, since: now}
	r.open[ref] = oc
	for _, o := range r.open {
		o.overlap = max(o.overlap, len(r.open))
	}
	oc.end = r.reg.OpenCall(rules.CallContext{Tool: c.Tool, Args: c.Args, Attempt: c.Attempt, Call: c.N, Session: c.Session})
}

// expireLocked closes the calls open for longer than the call timeout,
// whose end will not come (a report lost, a wrapper killed): left open,
// they would make every later exchange overlap them; r.mu is held.
func (r *Recorder) expireLocked(now time.Time) {
	for ref, oc := range r.open {
		if now.Sub(oc.since) >= r.opts.Limits.CallTimeout {
			oc.end()
			delete(r.open, ref)
		}
	}
}

// CallEnded implements [Sink]: the registry stops attributing traffic to
// the call, and the call goes to the worker.
func (r *Recorder) CallEnded(c Call) {
	r.mu.Lock()
	ref := callRef{c.Session, c.Seq}
	if oc := r.open[ref]; oc != nil {
		delete(r.open, ref)
		oc.end()
		c.N, c.Overlap = oc.n, oc.overlap
	} else if c.N == 0 && !r.closed {
		r.next++ // its start was not seen (a report lost it): number it now
		c.N = r.next
	}
	r.mu.Unlock()
	r.send(item{call: &c})
}

// send queues it for the worker without blocking.
func (r *Recorder) send(it item) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		r.dropped.Add(1)
		return
	}
	select {
	case r.queue <- it:
	default:
		r.dropped.Add(1)
	}
}

// RecorderStats are a recorder's counters.
type RecorderStats struct {
	// Open counts the calls open now; Calls and Sessions those remembered.
	Open, Calls, Sessions int
	// Numbered is how many calls the recorder has numbered.
	Numbered int
	// Dropped counts calls and session changes lost because the worker's
	// queue was full (or the recorder closed), or because grading them
	// panicked.
	Dropped uint64
}

// Stats returns the recorder's counters.
func (r *Recorder) Stats() RecorderStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RecorderStats{Open: len(r.open), Calls: r.calls.len(), Sessions: r.sessions.len(), Numbered: r.next,
		Dropped: r.dropped.Load()}
}

// Close stops the worker once it has handled what was queued, and ends
// the registry's attribution of calls still open. Close the fronts (the
// registry's upstreams) first, so that their sessions' last calls are
// recorded.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	close(r.queue)
	for ref, oc := range r.open {
		oc.end()
		delete(r.open, ref)
	}
	r.mu.Unlock()
	r.wg.Wait()
	return nil
}
