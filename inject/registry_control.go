package inject

import "time"

// ExtendRule sets the named rule's expiry to now + ttl (see
// [rules.Table.Extend]) and tells the proxies, so that a connection held
// until the old expiry waits for the new one.
func (r *Registry) ExtendRule(name string, ttl time.Duration) (time.Time, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	exp, err := r.table.Extend(name, ttl)
	if err != nil {
		return exp, err
	}
	r.notifyLocked()
	return exp, nil
}

// ResetRule zeroes the named rule's hit count (see
// [rules.Table.ResetCounters]) and tells the proxies, so that a rule that
// had reached its limit injects again.
func (r *Registry) ResetRule(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.table.ResetCounters(name); err != nil {
		return err
	}
	r.notifyLocked()
	return nil
}
