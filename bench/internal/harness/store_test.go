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

// TestFailedFigure: a measurement that failed (a refused exchange) shows
// as such in its cell and makes its goal a MISS naming the reason.
func TestFailedFigure(t *testing.T) {
	st := newStore(2)
	st.fail(0, "bigf.up", tMcpHTTP, "413")
	st.fail(1, "bigf.up", tMcpHTTP, "413")
	st.put(0, "bigf.up.rss", tMcpHTTP, 1)
	st.put(1, "bigf.up.rss", tMcpHTTP, 1)
	st.put(0, "big.up", tMcpHTTP, 90)
	st.fail(1, "big.up", tMcpHTTP, "reset")
	st.put(0, "big.up", tPlain, 100)
	st.put(1, "big.up", tPlain, 100)

	f := figure{id: "bigf.up", format: "%.0f"}
	if c := cell(st, f, tMcpHTTP, 2); c != "failed: 413" {
		t.Errorf("all rounds failed: cell %q", c)
	}
	if c := cell(st, figure{id: "big.up", format: "%.0f"}, tMcpHTTP, 2); c != "90 (1/2), failed: reset" {
		t.Errorf("one round failed: cell %q", c)
	}
	g := goal{fig: "bigf.up.rss", num: tMcpHTTP, max: 16, okID: "bigf.up"}
	if v := verdict(st, g); !strings.HasPrefix(v, "**MISS** failed: 413") {
		t.Errorf("small RSS but the exchange was refused: %s", v)
	}
	if v := verdict(st, goal{fig: "big.up", num: tMcpHTTP, den: tPlain, min: 0.5}); !strings.HasPrefix(v, "**MISS** failed: reset") {
		t.Errorf("a ratio over a round that failed: %s", v)
	}
	if v := verdict(st, goal{fig: "bigf.up.rss", num: tMcpHTTP, max: 16}); !strings.HasPrefix(v, "**PASS**") {
		t.Errorf("no okID, small RSS: %s", v)
	}
}

func TestRatioOf(t *testing.T) {
	st := newStore(1)
	st.put(0, "bigf.up", tMcpHTTP, 50)
	st.put(0, "big.up", tPlain, 200)
	if v, n := st.ratioOf("bigf.up", tMcpHTTP, "big.up", tPlain); n != 1 || v != 0.25 {
		t.Errorf("ratioOf = %v over %d, want 0.25 over 1", v, n)
	}
	if _, n := st.ratio("bigf.up", tMcpHTTP, tPlain); n != 0 {
		t.Error("plain has no faulted figure: no ratio within one metric")
	}
}

// TestNoFaultSummary: the summary line covers every no-fault rate figure
// a target took, counts a failure or a missing plain figure as not
// passed, and leaves out faulted figures and loads a target never took.
func TestNoFaultSummary(t *testing.T) {
	cfg := Quick()
	st := newStore(1)
	st.put(0, "ka1.rps", tPlain, 100)
	st.put(0, "ka1.rps", tMcpTCP, 99)
	st.put(0, "ka1.rps", tMcpHTTP, 96)
	st.put(0, "big.up", tPlain, 100)
	st.fail(0, "big.up", tMcpHTTP, "reset")
	st.put(0, "big.down", tMcpTCP, 100) // plain missing
	st.put(0, "bigf.up", tMcpHTTP, 10)  // faulted: not a no-fault goal
	present := map[string]bool{tPlain: true, tMcpTCP: true, tMcpHTTP: true}
	var b strings.Builder
	writeGoals(&b, &cfg, st, present, map[string]string{})
	out := b.String()
	if !strings.Contains(out, "**MISS** 2 of 4 — no-fault path") {
		t.Errorf("summary wrong:\n%s", out)
	}
	if n := strings.Count(out, "≥ 0.95× plain"); n != 4+1 {
		t.Errorf("%d no-fault lines (want 4 and the summary):\n%s", n, out)
	}
	if !strings.Contains(out, "(n/a)") || !strings.Contains(out, "failed: reset") {
		t.Errorf("the misses do not say why:\n%s", out)
	}
}
