package reader

import "strings"

// pairSet records which byte pairs and triples occur in a text (hashed
// into 8192 bits, so a collision only costs a search), so a needle one of
// whose triples (its pair, for a two-byte needle) never occurs anywhere
// in it can be ruled out without a search. Most of the phrase lists' needles are
// absent from any one reply; this turns their searches into one table
// look-up each and keeps reading cheap (docs/reader.md gives the figures).
type pairSet [128]uint64

// newPairSet indexes s, whose ASCII letters must be lower case.
func newPairSet(s string) *pairSet {
	ps := new(pairSet)
	for i := 0; i+1 < len(s); i++ {
		k := pairKey(s[i], s[i+1])
		ps[k>>6] |= 1 << (k & 63)
		if i+2 < len(s) {
			k = tripleKey(s[i], s[i+1], s[i+2])
			ps[k>>6] |= 1 << (k & 63)
		}
	}
	return ps
}

// may reports whether needle can occur in the indexed text. Upper-case
// ASCII in the needle is looked up as lower case (the index is of the
// lower-cased text), so the answer errs only towards a search.
func (ps *pairSet) may(needle string) bool {
	if ps == nil || len(needle) < 2 {
		return true
	}
	if len(needle) == 2 {
		k := pairKey(lowerByte(needle[0]), lowerByte(needle[1]))
		return ps[k>>6]&(1<<(k&63)) != 0
	}
	// Every triple of the needle must occur: a needle is ruled out by
	// any one of them, which costs a look-up each where a search would
	// cost a pass over the sentence.
	a, b := lowerByte(needle[0]), lowerByte(needle[1])
	for i := 2; i < len(needle); i++ {
		c := lowerByte(needle[i])
		if k := tripleKey(a, b, c); ps[k>>6]&(1<<(k&63)) == 0 {
			return false
		}
		a, b = b, c
	}
	return true
}

func pairKey(a, b byte) uint16 { return (uint16(a)<<7 ^ uint16(b)) & 8191 }

func tripleKey(a, b, c byte) uint16 {
	return uint16((uint32(a)*0x9E37+uint32(b)*0x79B9+uint32(c)*0x7F4B)>>3) & 8191
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasAnyIn is hasAny with the needles the index rules out skipped.
func hasAnyIn(ps *pairSet, s string, subs []string) bool {
	for _, x := range subs {
		if ps.may(x) && strings.Contains(s, x) {
			return true
		}
	}
	return false
}
