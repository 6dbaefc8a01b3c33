package rules

import "time"

// Clock tells the time. Tests inject one to drive TTLs without sleeping.
type Clock interface {
	Now() time.Time
}

// SystemClock reads the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }
