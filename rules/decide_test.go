package rules

import (
	"math"
	"testing"
)

func TestProbabilityFromSeed(t *testing.T) {
	run := func(seed uint64) []bool {
		tab := NewTable(TableOptions{Seed: seed})
		must(t, tab.Replace([]Rule{{Name: "half", Fault: spec("k"), Probability: ptr(0.5)}}))
		var ev Evaluator
		out := make([]bool, 2000)
		for i := range out {
			_, out[i] = ev.Match(tab.Load(), Env{Upstream: "u", Conn: i + 1}, tab.Now(), nil)
		}
		return out
	}
	a, b, c := run(42), run(42), run(43)
	hits, diff := 0, 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 42 not reproducible at conn %d", i+1)
		}
		if a[i] {
			hits++
		}
		if a[i] != c[i] {
			diff++
		}
	}
	if hits < 900 || hits > 1100 {
		t.Errorf("p=0.5 hit %d of 2000", hits)
	}
	if diff < 800 {
		t.Errorf("seeds 42 and 43 agree on %d of 2000 decisions", 2000-diff)
	}
}

func TestProbabilityNotRerolled(t *testing.T) {
	tab := NewTable(TableOptions{Seed: 7})
	must(t, tab.Replace([]Rule{{Name: "p", Fault: spec("k"), Probability: ptr(0.3)}}))
	var ev Evaluator
	decide := func() []bool {
		out := make([]bool, 500)
		for i := range out {
			m, ok := ev.Match(tab.Load(), Env{Upstream: "u", Conn: i + 1}, tab.Now(), nil)
			out[i] = ok && m.Rule.Name == "p"
		}
		return out
	}
	before := decide()
	// An unrelated rule added after it, then removed: no decision moves.
	if _, err := tab.Put(Rule{Name: "other", Upstream: "elsewhere", Fault: spec("k")}); err != nil {
		t.Fatal(err)
	}
	mid := decide()
	must(t, tab.Remove("other"))
	after := decide()
	for i := range before {
		if before[i] != mid[i] || before[i] != after[i] {
			t.Fatalf("decision for conn %d changed after an unrelated rule change", i+1)
		}
	}
}

func TestProbabilityBounds(t *testing.T) {
	tab := NewTable(TableOptions{Seed: 1})
	must(t, tab.Replace([]Rule{
		{Name: "never", Fault: spec("k"), Probability: ptr(0.0)},
		{Name: "always", Fault: spec("k"), Probability: ptr(1.0)},
	}))
	if tab.Load().Active("x", tab.Now()) != true {
		t.Error("p=1 rule not active")
	}
	var ev Evaluator
	for i := 0; i < 1000; i++ {
		m, ok := ev.Match(tab.Load(), Env{Conn: i, Seq: i}, tab.Now(), nil)
		if !ok || m.Rule.Name != "always" {
			t.Fatalf("unit %d: got %q", i, m.Rule.Name)
		}
	}
	if _, st := tab.Load().Rule(0); st.Hits() != 0 {
		t.Error("p=0 rule counted a hit")
	}
	only := NewTable(TableOptions{})
	must(t, only.Replace([]Rule{{Name: "never", Fault: spec("k"), Probability: ptr(0.0)}}))
	if only.Load().Active("x", only.Now()) {
		t.Error("a p=0 rule makes the upstream active: the fast path would be lost")
	}
}

func TestDecideRange(t *testing.T) {
	for i := 0; i < 10000; i++ {
		u := Decide(uint64(i), "r", "u", i, i*3)
		if u < 0 || u >= 1 || math.IsNaN(u) {
			t.Fatalf("Decide = %v", u)
		}
	}
}
