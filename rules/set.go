package rules

import (
	"sync/atomic"
	"time"

	"github.com/expr-lang/expr/vm"
)

// Set is an immutable, ordered snapshot of compiled rules. The first
// enabled rule that matches applies.
type Set struct {
	version uint64
	seed    uint64
	rules   []*compiled
	// changed is closed when a newer set replaces this one.
	changed chan struct{}
	uses    uses // see Reads
}

type compiled struct {
	rule  Rule
	prog  *vm.Program
	fault any
	state *State
}

// State is the mutable bookkeeping of one rule: its hit count and expiry.
// It survives a set swap while the rule's definition is unchanged (see
// [Rule.sameDefinition]: enabling, disabling or a new ttl keep it), and
// its address identifies the rule across swaps. Its fields are atomic
// because [Table.Extend] and [Table.ResetCounters] change them while the
// data path reads them.
type State struct {
	hits    atomic.Int64
	added   time.Time
	expires atomic.Int64 // Unix nanoseconds; 0: never
}

func newState(added, expires time.Time) *State {
	s := &State{added: added}
	s.setExpires(expires)
	return s
}

// Hits returns how many times the rule was injected.
func (s *State) Hits() int64 { return s.hits.Load() }

// Expires returns when the rule expires; the zero time means never.
func (s *State) Expires() time.Time {
	n := s.expires.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Added returns when the rule was added.
func (s *State) Added() time.Time { return s.added }

func (s *State) setExpires(t time.Time) {
	var n int64
	if !t.IsZero() {
		n = t.UnixNano()
	}
	s.expires.Store(n)
}

// expired reports whether the rule's TTL has passed at now.
func (s *State) expired(now time.Time) bool {
	n := s.expires.Load()
	return n != 0 && now.UnixNano() >= n
}

// Version increases with every swap of the table.
func (s *Set) Version() uint64 { return s.version }

// Seed is the seed probability decisions are drawn from.
func (s *Set) Seed() uint64 { return s.seed }

// Changed is closed when this set is replaced.
func (s *Set) Changed() <-chan struct{} { return s.changed }

// Len returns the number of rules.
func (s *Set) Len() int { return len(s.rules) }

// Rule returns the ith rule and its state.
func (s *Set) Rule(i int) (Rule, *State) { return s.rules[i].rule, s.rules[i].state }

// Active reports whether any rule that is enabled, unexpired, not
// exhausted and not at probability 0 could apply to the upstream at now.
// When it is false the data path can take its plain-copy fast path.
func (s *Set) Active(upstream string, now time.Time) bool {
	return s.ActiveVia(upstream, "", now)
}

// ActiveVia is [Set.Active] for traffic of upstream that came through the
// forward proxy via (see [Env].Via): a rule naming either could apply.
func (s *Set) ActiveVia(upstream, via string, now time.Time) bool {
	for _, c := range s.rules {
		if c.live(upstream, via, now) {
			return true
		}
	}
	return false
}

// NextExpiry returns the earliest expiry among live rules for the upstream,
// or the zero time.
func (s *Set) NextExpiry(upstream string, now time.Time) time.Time {
	var next time.Time
	for _, c := range s.rules {
		if exp := c.state.Expires(); c.live(upstream, "", now) && !exp.IsZero() &&
			(next.IsZero() || exp.Before(next)) {
			next = exp
		}
	}
	return next
}

func (c *compiled) live(upstream, via string, now time.Time) bool {
	r := &c.rule
	if r.Disabled || !r.scopes(upstream, via) || r.Chance() <= 0 {
		return false
	}
	if c.state.expired(now) {
		return false
	}
	return r.Limit == 0 || c.state.hits.Load() < int64(r.Limit)
}

// Match is the rule that applies to a unit of traffic.
type Match struct {
	// Rule is the matching rule's definition.
	Rule Rule
	// Fault is what the table's ParseFault made of Rule.Fault.
	Fault any
	// State identifies the rule across swaps and holds its counters.
	State *State
}

// Evaluator runs expressions. It owns an expr VM, which is not safe for
// concurrent use: give each goroutine of the data path its own. The zero
// value is ready.
type Evaluator struct {
	// Accept, when set, filters rules by their parsed fault: a TCP proxy
	// skips faults that only apply to HTTP. A skipped rule is not counted.
	Accept func(fault any) bool
	vm     vm.VM
}

// Match returns the first rule that applies to env at now, and counts the
// injection against the rule's limit. held, when not nil, identifies a
// rule already counted for this unit (a TCP connection re-evaluated after
// a swap): it is not counted again and its limit does not exclude it.
// The probability decision is [Decide] over the set's seed, the rule's
// name, env.Upstream, env.Conn and env.Seq.
func (e *Evaluator) Match(s *Set, env Env, now time.Time, held *State) (Match, bool) {
	return e.MatchUnit(s, NewUnit(env), now, held)
}

// Unit is the traffic being decided on. It holds its [Env] boxed once, so
// evaluating several rules, or re-evaluating after a swap, does not
// allocate: the data path builds one Unit per connection or request.
type Unit struct {
	env   Env
	boxed any
}

// NewUnit boxes env.
func NewUnit(env Env) *Unit { return &Unit{env: env, boxed: env} }

// Env returns the unit's environment.
func (u *Unit) Env() Env { return u.env }

// MatchUnit is [Evaluator.Match] for a prepared [Unit].
func (e *Evaluator) MatchUnit(s *Set, u *Unit, now time.Time, held *State) (Match, bool) {
	env := &u.env
	for _, c := range s.rules {
		r := &c.rule
		if r.Disabled || !r.scopes(env.Upstream, env.Via) {
			continue
		}
		if c.state.expired(now) {
			continue
		}
		if e.Accept != nil && !e.Accept(c.fault) {
			continue
		}
		if !passes(r.Chance(), Decide(s.seed, r.Name, env.Upstream, env.Conn, env.Seq)) {
			continue
		}
		counted := held != nil && held == c.state
		if !counted && r.Limit > 0 && c.state.hits.Load() >= int64(r.Limit) {
			continue
		}
		if c.prog != nil {
			out, err := e.vm.Run(c.prog, u.boxed)
			// A runtime error (a nil map index, say) means "does not
			// match": the data path must never fail because of a rule.
			if err != nil || out != true {
				continue
			}
		}
		if !counted && !c.take() {
			continue
		}
		return Match{Rule: c.rule, Fault: c.fault, State: c.state}, true
	}
	return Match{}, false
}

// take counts one injection, refusing when the limit is reached.
func (c *compiled) take() bool {
	if c.rule.Limit == 0 {
		c.state.hits.Add(1)
		return true
	}
	for {
		n := c.state.hits.Load()
		if n >= int64(c.rule.Limit) {
			return false
		}
		if c.state.hits.CompareAndSwap(n, n+1) {
			return true
		}
	}
}
