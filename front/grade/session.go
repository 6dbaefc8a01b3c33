package grade

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/front"
)

// SessionResult is a graded session: its calls as the simulator records
// them (numbered by their place in the session), its findings, its retry
// loop and duplicated writes.
type SessionResult struct {
	Session  front.Session
	Calls    []transcript.Call
	Tools    []transcript.Tool
	Findings []judge.Finding
	// Loop is the first retry loop, if any.
	Loop *Loop
	// Duplicates counts the writes committed upstream beyond the first
	// committing call of each tool and arguments; SideEffects is that
	// ledger, one entry per call key that committed writes.
	Duplicates  int
	SideEffects []transcript.SideEffectCount
	Verdict     string
	Evidence    string
}

// Loop is a streak of the same call, each repeat after a failure.
type Loop struct {
	Tool string `json:"tool"`
	// Calls are the streak's call numbers in the session.
	Calls []int `json:"calls"`
	// Last is the host channel of the streak's last call.
	Last transcript.Channel `json:"last"`
}

// Session grades a session's calls (any order; they are sorted by their
// number in the session).
func (l *Live) Session(s front.Session, calls []front.Call) SessionResult {
	calls = append([]front.Call(nil), calls...)
	sort.SliceStable(calls, func(a, b int) bool { return calls[a].Seq < calls[b].Seq })
	l.mu.Lock()
	l.drain()
	fs := make([]facts, len(calls))
	for i := range calls {
		fs[i] = l.ledger.get(calls[i].N)
	}
	l.mu.Unlock()
	r := SessionResult{Session: s, Tools: toTools(s.Tools), Calls: make([]transcript.Call, len(calls))}
	for i, c := range calls {
		r.Calls[i] = toCall(c, c.Seq, fs[i])
	}
	a := analyse(calls, fs, l.opts, key)
	r.Loop, r.Duplicates, r.SideEffects = a.loop, a.duplicates, a.ledger
	r.Findings = judge.Judge(judge.Input{Calls: r.Calls, Tools: r.Tools, Converged: a.loop == nil,
		SideEffects: a.ledger, ProtocolVersion: s.Protocol, Internal: l.opts.internal()})
	if a.loop != nil {
		r.Findings = append(r.Findings, loopFinding(*a.loop, l.opts.LoopThreshold))
		sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].ID < r.Findings[j].ID })
	}
	switch {
	case a.duplicates > 0:
		r.Verdict = VerdictDuplicate
		r.Evidence = fmt.Sprintf("%d duplicated write(s): %s", a.duplicates, a.dupEvidence)
	case a.loop != nil:
		r.Verdict = VerdictLoop
		r.Evidence = loopEvidence(*a.loop)
	case len(r.Findings) > 0:
		r.Verdict = r.Findings[0].ID
	default:
		r.Verdict = VerdictConverged
	}
	return r
}

// loopFinding is MC002 on live traffic: the judge's check needs a
// budget, which a real agent does not declare, so the grader states the
// streak it saw.
func loopFinding(lp Loop, threshold int) judge.Finding {
	f := judge.Finding{ID: FindingLoop, Severity: judge.SeverityError, Tool: lp.Tool, Call: lp.Calls[len(lp.Calls)-1],
		Evidence: loopEvidence(lp) + fmt.Sprintf(" (loop threshold %d)", threshold), Basis: judge.BasisFact}
	for _, c := range judge.Checks() {
		if c.ID == FindingLoop {
			f.Title, f.Hint = "retry loop: the agent repeated a failing call", c.Hint
		}
	}
	return f
}

func loopEvidence(lp Loop) string {
	return fmt.Sprintf("%s called %d times in a row after failures (calls %v), last %s", lp.Tool, len(lp.Calls), lp.Calls, lp.Last)
}

// analysis is what analyse found, per call and for the session.
type analysis struct {
	loopAt, dupAt []bool
	loop          *Loop
	duplicates    int
	dupEvidence   string
	ledger        []transcript.SideEffectCount
}

// analyse finds retry loops and duplicated writes in calls (sorted by
// Seq) with their facts; keyOf is each call's key (key, or one key for
// calls already known to share it).
func analyse(calls []front.Call, fs []facts, o Options, keyOf func(front.Call) string) analysis {
	a := analysis{loopAt: make([]bool, len(calls)), dupAt: make([]bool, len(calls))}
	type streak struct {
		idx    []int
		failed bool // the key's previous call failed
	}
	type effects struct {
		first, total int
		posts        int
		seen         map[string]bool
	}
	streaks := map[string]*streak{}
	writes := map[string]*effects{}
	var order []string
	for i, c := range calls {
		k := keyOf(c)
		st := streaks[k]
		switch {
		case st == nil || !st.failed || c.Start.Sub(calls[st.idx[0]].Start) > o.LoopWindow:
			st = &streak{idx: []int{i}}
			streaks[k] = st
		default:
			st.idx = append(st.idx, i)
		}
		st.failed = failed(c)
		if len(st.idx) >= o.LoopThreshold {
			a.loopAt[i] = true
			if a.loop == nil || a.loop.Tool == c.Tool && a.loop.Calls[0] == calls[st.idx[0]].Seq {
				lp := &Loop{Tool: c.Tool, Last: c.HostChannel()}
				for _, j := range st.idx {
					lp.Calls = append(lp.Calls, calls[j].Seq)
				}
				a.loop = lp
			}
		}
		f := fs[i]
		if f.writes == 0 && len(f.effects) == 0 {
			continue
		}
		w := writes[k]
		if w == nil {
			w = &effects{seen: map[string]bool{}}
			writes[k] = w
			order = append(order, k)
			w.first = f.writes + len(f.effects)
		}
		before := w.total
		w.posts += f.writes
		for e := range f.effects {
			w.seen[e] = true
		}
		w.total = w.posts + len(w.seen)
		a.dupAt[i] = before > 0 && w.total > before
		if n := w.total - w.first; n > 0 && a.dupEvidence == "" {
			a.dupEvidence = fmt.Sprintf("%s committed again by call %d (attempt %d)", c.Tool, c.Seq, c.Attempt)
		}
	}
	for _, k := range order {
		w := writes[k]
		a.duplicates += w.total - w.first
		a.ledger = append(a.ledger, transcript.SideEffectCount{Name: label(k) + " committed writes",
			Intended: w.first, Committed: w.total, Source: "events"})
	}
	return a
}

// key is a call's tool and arguments; a call whose arguments were too
// large to keep is keyed by tool and attempt chain instead (its attempt
// number is counted on the arguments' hash).
func key(c front.Call) string { return front.CallKey(c) }

// label names a call key for a report: the tool and its arguments.
func label(k string) string {
	tool, args, ok := strings.Cut(k, "\x00")
	if !ok {
		return k
	}
	return tool + " " + transcript.ClipBytes(args, 120, "…")
}
