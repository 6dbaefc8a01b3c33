package grade

import (
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/inject"
)

// Verdicts a [Live] grader gives, besides finding IDs.
const (
	// VerdictConverged: nothing wrong was seen.
	VerdictConverged = "converged"
	// VerdictLoop: the call is (or the session holds) a retry loop.
	VerdictLoop = "loop"
	// VerdictDuplicate: the call committed (or the session holds) a write
	// already committed by an earlier call of the same tool and arguments.
	VerdictDuplicate = "duplicate"
)

// FindingLoop and FindingDuplicate are the judge's finding IDs for a
// retry loop and a duplicated side effect, which a session's findings
// carry when it holds one.
const (
	FindingLoop      = "MC002"
	FindingDuplicate = "MC003"
)

// Options configures a [Live] grader. The zero value is usable.
type Options struct {
	// LoopThreshold is how many calls of the same tool with the same
	// arguments, each after the previous one failed, make a retry loop.
	// Zero means 3 (a call and two retries of it after failures).
	LoopThreshold int
	// LoopWindow is how long after the first failure of a streak its
	// repeats count; a repeat later than that starts a new streak. Zero
	// means 10 minutes.
	LoopWindow time.Duration
	// Keep is how many calls' upstream facts (exchanges, injections) the
	// grader remembers. Zero means 8192.
	Keep int
	// Buffer is the bus subscription's buffer: the events published
	// between two graded calls or sessions must fit, or the excess is
	// lost (and counted in [Live.Lost]). Zero means 16384.
	Buffer int
	// Internal returns the values the judge flags in any reply (MC007):
	// upstream targets and proxy addresses the agent must not be told. It
	// is called at each grade (upstreams come and go); nil means none.
	Internal func() []string
}

func (o Options) internal() []string {
	if o.Internal == nil {
		return nil
	}
	return o.Internal()
}

// UpstreamValues lists reg's upstream targets and proxy addresses: the
// Internal of a grader that runs beside the fault layer.
func UpstreamValues(reg *inject.Registry) func() []string {
	return func() []string {
		var out []string
		for _, u := range reg.Upstreams() {
			out = append(out, u.Target, u.Listen)
		}
		return out
	}
}

func (o Options) withDefaults() Options {
	if o.LoopThreshold <= 0 {
		o.LoopThreshold = 3
	}
	if o.LoopWindow <= 0 {
		o.LoopWindow = 10 * time.Minute
	}
	if o.Keep <= 0 {
		o.Keep = 8192
	}
	if o.Buffer <= 0 {
		o.Buffer = 16384
	}
	return o
}

// Live grades live calls and sessions with the simulator's judge. It
// subscribes to the registry's bus and folds the exchanges and injections
// stamped with a call's number into that call's facts. It owns no
// goroutine: each grade first drains what the bus has delivered, which is
// every event published before the grade began (the bus offers an event
// to its subscribers before Publish returns). Close it when done.
type Live struct {
	opts Options
	sub  *inject.Subscription

	mu     sync.Mutex
	ledger *ledger
	lost   uint64
}

// New returns a grader over reg's bus.
func New(reg *inject.Registry, opts Options) *Live {
	opts = opts.withDefaults()
	return &Live{opts: opts, sub: reg.Bus().Subscribe(opts.Buffer), ledger: newLedger(opts.Keep)}
}

// Close ends the grader's subscription.
func (l *Live) Close() error {
	l.sub.Close()
	return nil
}

// Lost returns how many events the grader lost because its buffer was
// full between two grades.
func (l *Live) Lost() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// drain folds every event delivered so far; l.mu is held.
func (l *Live) drain() {
	for {
		select {
		case e, ok := <-l.sub.C():
			if !ok {
				return
			}
			if e.Type == inject.EventDropped {
				l.lost += e.Count
			}
			l.ledger.add(e)
		default:
			return
		}
	}
}

// GradeCall implements [front.Grader]: the judge's findings on c alone
// (its channel and message, its upstream traffic), and its verdict: loop
// when it extends a retry loop, duplicate when it committed a write an
// earlier call of the same key committed, else its first finding, else
// converged.
func (l *Live) GradeCall(s front.Session, c front.Call, earlier []*front.Call) front.Grade {
	// The earlier calls are c's tool and arguments only (front.Grader):
	// c extends a retry loop when enough of them failed in a row just
	// before it, and duplicates a write when they committed and c commits
	// something new. Both read the ledger in place, so a call costs about
	// the same however many times it was repeated.
	l.mu.Lock()
	l.drain()
	own := l.ledger.get(c.N)
	dup := l.duplicates(own, earlier)
	l.mu.Unlock()
	loop := streak(earlier, c, l.opts.LoopWindow) >= l.opts.LoopThreshold
	fs := judge.Judge(judge.Input{Calls: []transcript.Call{toCall(c, c.Seq, own)}, Tools: toTools(s.Tools),
		Converged: true, ProtocolVersion: s.Protocol, Internal: l.opts.internal()})
	g := front.Grade{Findings: findingIDs(fs)}
	switch {
	case loop:
		g.Verdict = VerdictLoop
	case dup:
		g.Verdict = VerdictDuplicate
	case len(g.Findings) > 0:
		g.Verdict = g.Findings[0]
	default:
		g.Verdict = VerdictConverged
	}
	return g
}

// duplicates reports whether a call with facts own commits a write again:
// the earlier calls of its key committed writes (POSTs, or PUT, PATCH and
// DELETE effects), and own adds a POST or an effect they did not have.
// It holds l.mu.
func (l *Live) duplicates(own facts, earlier []*front.Call) bool {
	if own.writes == 0 && len(own.effects) == 0 {
		return false
	}
	before := 0
	var seen map[string]bool
	for i := range earlier {
		f := l.ledger.calls[earlier[i].N]
		if f == nil {
			continue
		}
		before += f.writes
		for e := range f.effects {
			if seen == nil {
				seen = map[string]bool{}
			}
			if !seen[e] {
				seen[e] = true
				before++
			}
		}
	}
	if before == 0 {
		return false
	}
	if own.writes > 0 {
		return true
	}
	for e := range own.effects {
		if !seen[e] {
			return true
		}
	}
	return false
}

// streak is the length of the retry streak c ends, as analyse counts it:
// the calls of its key since the last one that did not fail (a success
// starts the next streak afresh), each after a failure, restarting when a
// call comes later than window after the streak's first.
func streak(earlier []*front.Call, c front.Call, window time.Duration) int {
	from := len(earlier)
	for from > 0 && failed(*earlier[from-1]) {
		from--
	}
	var first time.Time
	n := 0
	for i := from; i <= len(earlier); i++ {
		cur := &c
		if i < len(earlier) {
			cur = earlier[i]
		}
		if n == 0 || cur.Start.Sub(first) > window {
			first, n = cur.Start, 1
			continue
		}
		n++
	}
	return n
}

// GradeSession implements [front.Grader]: the judge's findings on the
// whole session (with the duplicate writes as a side-effect count), the
// retry loop, and the verdict: duplicate, else loop, else the first
// finding, else converged.
func (l *Live) GradeSession(s front.Session, calls []front.Call) front.Grade {
	r := l.Session(s, calls)
	return front.Grade{Verdict: r.Verdict, Findings: findingIDs(r.Findings), Evidence: r.Evidence}
}

func findingIDs(fs []judge.Finding) []string {
	var ids []string
	for _, f := range fs {
		if len(ids) == 0 || ids[len(ids)-1] != f.ID {
			ids = append(ids, f.ID)
		}
	}
	return ids
}
