package rules

import (
	"testing"
	"time"
)

// BenchmarkMatch measures the data path's cost of one rule decision with
// the four-clause rule of BENCHMARKS.md. Target: ≤150 ns/op, 0 allocs.
func BenchmarkMatch(b *testing.B) {
	tab := NewTable(TableOptions{})
	if err := tab.Replace([]Rule{{
		Name: "r", Fault: FaultSpec{Kind: "k"},
		When: `method == "POST" && path == "/shipments" && tool == "create_shipment" && attempt == 1`,
	}}); err != nil {
		b.Fatal(err)
	}
	set := tab.Load()
	env := Env{Upstream: "api", Method: "POST", Path: "/shipments", Tool: "create_shipment", Attempt: 1}
	now := time.Now()
	unit := NewUnit(env)
	var ev Evaluator
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := ev.MatchUnit(set, unit, now, nil); !ok {
			b.Fatal("no match")
		}
	}
}

// BenchmarkIdle measures the check the fast path makes: no rule applies.
func BenchmarkIdle(b *testing.B) {
	tab := NewTable(TableOptions{})
	if err := tab.Replace([]Rule{{Name: "r", Upstream: "other", Fault: FaultSpec{Kind: "k"}}}); err != nil {
		b.Fatal(err)
	}
	set, now := tab.Load(), time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if set.Active("api", now) {
			b.Fatal("active")
		}
	}
}
