package rules

import "math"

// Decide returns a number in [0, 1) that is a pure function of its inputs.
// A rule's probability is compared against it, so the decision for a given
// connection or request is made from the seed alone: it is reproducible
// and is never re-rolled when other rules change.
func Decide(seed uint64, rule, upstream string, conn, seq int) float64 {
	h := uint64(14695981039346656037) // FNV-1a offset basis
	h = fnvString(h, rule)
	h = fnvString(h, "\x00")
	h = fnvString(h, upstream)
	h ^= uint64(conn)
	h *= 1099511628211
	h ^= uint64(seq) << 1
	h *= 1099511628211
	h = splitmix(h ^ seed)
	return float64(h>>11) / (1 << 53)
}

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// splitmix is SplitMix64's finaliser: it spreads FNV's weak low bits.
func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// passes reports whether a probability p lets the unit through; p == 0 is
// an exact no-op and p == 1 always passes.
func passes(p, u float64) bool {
	switch {
	case p <= 0 || math.IsNaN(p):
		return false
	case p >= 1:
		return true
	}
	return u < p
}
