package rules

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// DefaultTTL is how long a rule without a TTL lives when
// [TableOptions.DefaultTTL] is zero. mcpchaos breaks things on purpose;
// nothing it breaks stays broken by accident.
const DefaultTTL = 15 * time.Minute

// TableOptions configures a [Table]. The zero value is usable.
type TableOptions struct {
	// Seed feeds every probability decision. Zero is a valid seed.
	Seed uint64
	// Clock tells the time; nil means the system clock.
	Clock Clock
	// DefaultTTL applies to rules with no TTL. Zero means [DefaultTTL];
	// a negative value means such rules never expire.
	DefaultTTL time.Duration
	// MaxTTL, when positive, is the longest TTL a rule may ask for: a
	// longer one is refused (a *[FieldError] on "ttl"), never cut, so
	// that whoever set it knows when the fault ends. A rule without a TTL
	// gets the default TTL cut to MaxTTL (and a "never" default becomes
	// MaxTTL). Zero means no maximum.
	MaxTTL time.Duration
	// ParseFault validates and converts fault specs; nil keeps specs
	// unparsed (Match.Fault is then nil).
	ParseFault ParseFault
}

// Table holds the current [Set]. Readers call [Table.Load] and never
// block; writers are serialised and swap in a new snapshot.
type Table struct {
	opts TableOptions
	mu   sync.Mutex // serialises writers
	cur  atomicSet
}

// NewTable returns an empty table.
func NewTable(opts TableOptions) *Table {
	if opts.Clock == nil {
		opts.Clock = SystemClock{}
	}
	if opts.DefaultTTL == 0 {
		opts.DefaultTTL = DefaultTTL
	}
	t := &Table{opts: opts}
	t.cur.Store(&Set{seed: opts.Seed, changed: make(chan struct{})})
	return t
}

// Load returns the current snapshot.
func (t *Table) Load() *Set { return t.cur.Load() }

// Now reads the table's clock.
func (t *Table) Now() time.Time { return t.opts.Clock.Now() }

// Check compiles a rule without adding it, returning the same errors as
// [Table.Put].
func (t *Table) Check(r Rule) error {
	_, err := t.compile(r)
	return err
}

// compile checks what depends on the table (the TTL's maximum), then
// compiles the rule.
func (t *Table) compile(r Rule) (*compiled, error) {
	if r.Name != "" && r.TTL > 0 {
		if err := t.checkTTL(r.Name, r.TTL); err != nil {
			return nil, err
		}
	}
	return compileRule(r, t.opts.ParseFault)
}

// Replace swaps the whole rule set. Rules whose definition is unchanged
// keep their state, as with [Table.Put]. On error nothing changes.
func (t *Table) Replace(rs []Rule) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.swap(rs)
}

// Put adds a rule at the end of the set, or replaces the rule with the
// same name in place. It reports whether the rule was new.
//
// A replacement with the same definition (everything but Disabled and
// TTL; see [Rule.sameDefinition]) keeps the rule's state: its hit count
// and the time it was added. A changed TTL then moves the expiry to the
// time the rule was added plus the new TTL: the TTL clock is not
// restarted, so re-submitting a rule never makes it live longer than its
// TTL from when it was first added. [Table.Extend] is the way to do
// that. Any other change makes a new rule, with no hits and a fresh TTL.
func (t *Table) Put(r Rule) (created bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rs := t.rulesLocked()
	i := slices.IndexFunc(rs, func(o Rule) bool { return o.Name == r.Name })
	if i < 0 {
		rs = append(rs, r)
	} else {
		rs[i] = r
	}
	return i < 0, t.swap(rs)
}

// Remove deletes the named rule.
func (t *Table) Remove(name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	rs := t.rulesLocked()
	i := slices.IndexFunc(rs, func(o Rule) bool { return o.Name == name })
	if i < 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	return t.swap(slices.Delete(rs, i, i+1))
}

// Clear removes every rule: the "halt" of the data path. It returns how
// many rules were removed.
func (t *Table) Clear() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.cur.Load().Len()
	_ = t.swap(nil)
	return n
}

// Sweep removes expired rules and returns how many it removed. Calling it
// periodically wakes connections held by an expired fault.
func (t *Table) Sweep() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.opts.Clock.Now()
	cur := t.cur.Load()
	var keep []Rule
	for _, c := range cur.rules {
		if !c.state.expired(now) {
			keep = append(keep, c.rule)
		}
	}
	n := cur.Len() - len(keep)
	if n > 0 {
		_ = t.swap(keep)
	}
	return n
}

// Rules returns the current rules in order.
func (t *Table) Rules() []Rule {
	s := t.cur.Load()
	out := make([]Rule, len(s.rules))
	for i, c := range s.rules {
		out[i] = c.rule
	}
	return out
}

func (t *Table) rulesLocked() []Rule { return t.Rules() }

// swap compiles rs and installs it; t.mu must be held. States are changed
// only once every rule has compiled, so that a failed swap changes
// nothing.
func (t *Table) swap(rs []Rule) error {
	old := t.cur.Load()
	prev := make(map[string]*compiled, len(old.rules))
	for _, c := range old.rules {
		prev[c.rule.Name] = c
	}
	now := t.opts.Clock.Now()
	next := &Set{version: old.version + 1, seed: t.opts.Seed, changed: make(chan struct{})}
	seen := make(map[string]bool, len(rs))
	type move struct {
		st  *State
		exp time.Time
	}
	var moves []move
	for _, r := range rs {
		if seen[r.Name] {
			return &FieldError{Rule: r.Name, Field: "name", Msg: "is used by two rules", Err: ErrDuplicate}
		}
		seen[r.Name] = true
		c, err := t.compile(r)
		if err != nil {
			return err
		}
		p, ok := prev[r.Name]
		switch {
		case !ok || !p.rule.sameDefinition(r):
			c.state = newState(now, t.expiry(r, now))
		case p.rule.TTL != r.TTL:
			c.state = p.state
			moves = append(moves, move{p.state, t.expiry(r, p.state.added)})
		default:
			c.state = p.state
		}
		next.rules = append(next.rules, c)
	}
	for _, m := range moves {
		m.st.setExpires(m.exp)
	}
	t.publish(next)
	return nil
}

// publish installs next and wakes whoever waits on the set it replaces;
// t.mu must be held.
func (t *Table) publish(next *Set) {
	old := t.cur.Load()
	t.cur.Store(next)
	close(old.changed)
}

// expiry returns when r, added at from, expires: the zero time for never.
// Only a default TTL is cut to MaxTTL here; a rule's own TTL over it was
// refused by checkTTL.
func (t *Table) expiry(r Rule, from time.Time) time.Time {
	ttl := r.TTL
	if ttl == 0 {
		ttl = t.opts.DefaultTTL
	}
	if t.opts.MaxTTL > 0 && (ttl < 0 || ttl > t.opts.MaxTTL) {
		ttl = t.opts.MaxTTL
	}
	if ttl < 0 {
		return time.Time{}
	}
	return from.Add(ttl)
}

// checkTTL refuses a TTL over the table's maximum.
func (t *Table) checkTTL(rule string, ttl time.Duration) error {
	if t.opts.MaxTTL > 0 && ttl > t.opts.MaxTTL {
		return &FieldError{Rule: rule, Field: "ttl", Err: ErrTTLOverMax,
			Msg: fmt.Sprintf("is over the maximum of %s (serve --max-ttl)", t.opts.MaxTTL)}
	}
	return nil
}
