package reader

import "testing"

// TestPairSetNeverRulesOutAPresentNeedle: the index may only skip
// searches that would fail; hasAnyIn must agree with hasAny.
func TestPairSetNeverRulesOutAPresentNeedle(t *testing.T) {
	needles := n("retry", "do not", "n't re", "0.", "a:", "SELECT", "é", "x", "", "until", "\t")
	for _, text := range []string{
		"",
		"do not retry this call until you have checked list_charges.",
		"dial tcp 10.0.3.7:5432: connect: connection refused",
		"select id from users; SELECT * FROM orders",
		"Der Dienst ist vorübergehend nicht erreichbar. café",
		"x",
		"tab\tseparated",
	} {
		low := asciiLower(text)
		ps := newPairSet(low)
		for _, nd := range needles {
			want := hasAny(low, []string{nd})
			if got := hasAnyIn(ps, low, []string{nd}); got != want {
				t.Errorf("text %q needle %q: hasAnyIn %v, hasAny %v", text, nd, got, want)
			}
		}
	}
	// Upper-case needles are looked up as lower case: "SELECT" in the
	// text as written must not be ruled out by the lower-case index.
	text := "SELECT * FROM users"
	if !newPairSet(asciiLower(text)).may("SELECT") {
		t.Error("an upper-case needle present in the text was ruled out")
	}
	if newPairSet("abc").may("zq") {
		t.Error("a pair absent from the text was not ruled out")
	}
}
