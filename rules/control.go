package rules

import (
	"fmt"
	"time"
)

// Extend sets the named rule's expiry to now + ttl, whatever it was
// (later, earlier, or never), and returns it. It is the one way to make a
// rule live longer than its TTL from when it was added: re-submitting the
// rule does not (see [Table.Put]). ttl must be positive and at most the
// table's MaxTTL. The rule keeps its hit count; an expired rule that has
// not been swept yet comes back.
func (t *Table) Extend(name string, ttl time.Duration) (time.Time, error) {
	if ttl <= 0 {
		return time.Time{}, &FieldError{Rule: name, Field: "ttl", Msg: "must be positive"}
	}
	if err := t.checkTTL(name, ttl); err != nil {
		return time.Time{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	st, err := t.stateLocked(name)
	if err != nil {
		return time.Time{}, err
	}
	exp := t.opts.Clock.Now().Add(ttl)
	st.setExpires(exp)
	t.republishLocked()
	return exp, nil
}

// ResetCounters sets the named rule's hit count to zero, so that a rule
// that reached its limit injects again (limit more times). Its TTL is
// untouched.
func (t *Table) ResetCounters(name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, err := t.stateLocked(name)
	if err != nil {
		return err
	}
	st.hits.Store(0)
	t.republishLocked()
	return nil
}

func (t *Table) stateLocked(name string) (*State, error) {
	for _, c := range t.cur.Load().rules {
		if c.rule.Name == name {
			return c.state, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
}

// republishLocked installs a new version of the same rules, so that
// whoever caches a decision about the set (a proxy's fast path, a held
// connection's timer on the next expiry) takes it again; t.mu must be
// held.
func (t *Table) republishLocked() {
	old := t.cur.Load()
	t.publish(&Set{version: old.version + 1, seed: old.seed, rules: old.rules, changed: make(chan struct{})})
}
