package harness

import (
	"math"
	"strings"
	"testing"
)

func TestStoreRatioIsPerRound(t *testing.T) {
	st := newStore(3)
	// The machine drifts between rounds; the per-round ratio does not.
	for r, scale := range []float64{1, 2, 4} {
		st.put(r, "x", "a", 90*scale)
		st.put(r, "x", "b", 100*scale)
	}
	if v, n := st.ratio("x", "a", "b"); n != 3 || math.Abs(v-0.9) > 1e-9 {
		t.Errorf("ratio = %v over %d rounds, want 0.9 over 3", v, n)
	}
	if v, n := st.median("x", "b"); n != 3 || v != 200 {
		t.Errorf("median = %v over %d, want 200 over 3", v, n)
	}
	if _, n := st.median("x", "c"); n != 0 {
		t.Error("median of nothing")
	}
}

func TestMedianEven(t *testing.T) {
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median = %v", m)
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of none should be NaN")
	}
}

func TestRotate(t *testing.T) {
	ts := []*target{{name: "a"}, {name: "b"}, {name: "c"}}
	var names []string
	for _, tg := range rotate(ts, 4) {
		names = append(names, tg.name)
	}
	if got := strings.Join(names, ""); got != "bca" {
		t.Errorf("rotate = %s", got)
	}
	if ts[0].name != "a" {
		t.Error("rotate changed its input")
	}
}

func TestVerdict(t *testing.T) {
	st := newStore(1)
	st.put(0, "rps", tMcpTCP, 96)
	st.put(0, "rps", tPlain, 100)
	st.put(0, "rule.call", tMcpTCP, 0.5)
	st.put(0, "rule.ended", tMcpTCP, 999)
	if v := verdict(st, goal{fig: "rps", num: tMcpTCP, den: tPlain, min: 0.95}); !strings.HasPrefix(v, "**PASS**") {
		t.Errorf("0.96 vs 0.95: %s", v)
	}
	g := goal{fig: "rule.call", num: tMcpTCP, max: 2, needID: "rule.ended", need: 1000}
	if v := verdict(st, g); !strings.HasPrefix(v, "**MISS**") {
		t.Errorf("999 of 1000 reached must miss: %s", v)
	}
	if v := verdict(st, goal{fig: "rps", num: tToxi, den: tPlain, min: 1}); v != "n/a" {
		t.Errorf("unmeasured: %s", v)
	}
}
