package grade

import (
	"net/http"
	"slices"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// facts are what the fault layer saw of one call's upstream traffic: the
// events stamped with its number.
type facts struct {
	injections []string
	faults     []transcript.InjectionRecord
	exchanges  int
	committed  int // answered with a status < 300 (the runner's Committed)
	// writes are the committed non-idempotent writes: POSTs the upstream
	// answered 2xx; effects the PUT, PATCH and DELETE ones, one per
	// upstream, path and body (identical repeats fold, as the runner's
	// matchers fold them).
	writes  int
	effects map[string]bool
}

// fold adds e to f.
func (f *facts) fold(e inject.Event) {
	switch e.Type {
	case inject.EventInjection:
		if !slices.Contains(f.injections, e.Rule) {
			f.injections = append(f.injections, e.Rule)
		}
		i := slices.IndexFunc(f.faults, func(r transcript.InjectionRecord) bool { return r.Rule == e.Rule })
		if i < 0 {
			f.faults = append(f.faults, transcript.InjectionRecord{Rule: e.Rule, Kind: e.Fault, Outcome: e.Outcome,
				ServerKnows: e.ServerKnows})
			i = len(f.faults) - 1
		}
		if e.Conn != 0 { // a closed listener's refusal names no connection: not counted, as in the runner
			f.faults[i].Hits++
		}
	case inject.EventExchange:
		f.exchanges++
		if !e.Committed || e.Status <= 0 || e.Status >= 300 {
			return
		}
		f.committed++
		if !e.Reached || e.Status < 200 {
			return
		}
		switch e.Method {
		case http.MethodPost:
			f.writes++
		case http.MethodPut, http.MethodPatch, http.MethodDelete:
			if f.effects == nil {
				f.effects = map[string]bool{}
			}
			f.effects[e.Upstream+" "+e.Method+" "+e.Path+" "+e.BodyHash] = true
		}
	}
}

// ledger keeps the facts of the most recent calls, by call number.
type ledger struct {
	max   int
	calls map[int]*facts
	order []int // call numbers, oldest first
}

func newLedger(max int) *ledger { return &ledger{max: max, calls: map[int]*facts{}} }

// add folds e into its call's facts; events of no call (or of several,
// ambiguous: Call is 0) are not any call's.
func (l *ledger) add(e inject.Event) {
	if e.Call < 1 || e.Type != inject.EventInjection && e.Type != inject.EventExchange {
		return
	}
	f := l.calls[e.Call]
	if f == nil {
		f = &facts{}
		l.calls[e.Call] = f
		l.order = append(l.order, e.Call)
		if len(l.order) > l.max {
			delete(l.calls, l.order[0])
			l.order = l.order[1:]
		}
	}
	f.fold(e)
}

// get returns call n's facts (zero when none are known).
func (l *ledger) get(n int) facts {
	if f := l.calls[n]; f != nil {
		return *f
	}
	return facts{}
}
