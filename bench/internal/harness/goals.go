package harness

import (
	"fmt"
	"slices"
	"strings"
)

// goal is one target of the issue, checked against the figures: either
// the ratio fig(num)/fig(den) is at least min, or (den empty) fig(num) is
// at most max and, if needID is set, figure needID of num equals need.
// If okID is set, figure okID of num must not have failed in any round.
type goal struct {
	label, fig, num, den string
	min, max, need       float64
	needID, okID         string
}

// noFaultMin is the bar for the no-fault path: every rate at
// least this fraction of the plain proxy's, in the same run.
const noFaultMin = 0.95

// bigGrowthMax bounds how far above its RSS at rest a proxy may go while
// carrying one faulted large-body exchange. A proxy that holds the body
// grows by the body (64 MiB) or more; one that streams it holds a few
// copy buffers. 16 MiB sits between the two with room for the Go
// runtime's own growth.
const bigGrowthMax = 16

// rateGoals are the no-fault goals: mcpchaos tcp and http at least
// noFaultMin× plain on every rate figure that carries no fault. A target
// that does not take a load is left out when the goals are printed.
func rateGoals(cfg *Config) []goal {
	var gs []goal
	for _, f := range figures(cfg) {
		if f.kind != figRate || f.base != "" {
			continue
		}
		for _, num := range []string{tMcpTCP, tMcpHTTP} {
			gs = append(gs, goal{label: fmt.Sprintf("%s ≥ %.2f× plain", num, noFaultMin), fig: f.id, num: num, den: tPlain, min: noFaultMin})
		}
	}
	return gs
}

// otherGoals are the goals on single figures.
func otherGoals(cfg *Config) []goal {
	big := sizeLabel(cfg.BigBytes)
	return []goal{
		{label: "mcpchaos tcp ≥ 1.5× Toxiproxy", fig: "new8.rps", num: tMcpTCP, den: tToxi, min: 1.5},
		{label: "mcpchaos http ≥ 1.5× Toxiproxy", fig: "new8.rps", num: tMcpHTTP, den: tToxi, min: 1.5},
		{label: "mcpchaos tcp ≥ 2.5× Toxiproxy", fig: "bulk.down", num: tMcpTCP, den: tToxi, min: 2.5},
		{label: "mcpchaos tcp ≥ 2.5× Toxiproxy", fig: "bulk.up", num: tMcpTCP, den: tToxi, min: 2.5},
		{label: "mcpchaos tcp ≤ 20 KiB per idle connection", fig: "mem.kib", num: tMcpTCP, max: 20},
		{label: "mcpchaos tcp: rule change on live connections ≤ 2 ms, all reached", fig: "rule.call", num: tMcpTCP, max: 2,
			needID: "rule.ended", need: float64(cfg.LiveConns)},
		{label: "mcpchaos http: rule change on live connections ≤ 2 ms, all reached", fig: "rule.call", num: tMcpHTTP, max: 2,
			needID: "rule.ended", need: float64(cfg.LiveConns)},
		{label: fmt.Sprintf("mcpchaos http, latency %v: a %s POST goes through, peak RSS ≤ rest + %d MiB", bigDelay, big, bigGrowthMax),
			fig: "bigf.up.rss", num: tMcpHTTP, max: bigGrowthMax, okID: "bigf.up"},
		{label: fmt.Sprintf("mcpchaos http, latency %v: a %s GET goes through, peak RSS ≤ rest + %d MiB", bigDelay, big, bigGrowthMax),
			fig: "bigf.down.rss", num: tMcpHTTP, max: bigGrowthMax, okID: "bigf.down"},
	}
}

// writeGoals prints the targets section: the no-fault goals one by one
// and as one line over all of them, then the others. A goal whose target
// is not in the run, or never took the load, is left out.
func writeGoals(b *strings.Builder, cfg *Config, st *store, present map[string]bool, labels map[string]string) {
	taken := func(g goal) bool {
		if !present[g.num] || (g.den != "" && !present[g.den]) {
			return false
		}
		_, n := st.median(g.fig, g.num)
		return n > 0 || len(st.failures(g.fig, g.num)) > 0
	}
	line := func(g goal) {
		fmt.Fprintf(b, "- %s — %s: %s\n", verdict(st, g), g.label, strings.TrimSuffix(labels[g.fig], ":"))
	}
	var all, passed int
	var missed []string
	for _, g := range rateGoals(cfg) {
		if !taken(g) {
			continue
		}
		line(g)
		all++
		switch v := verdict(st, g); {
		case strings.HasPrefix(v, passMiss(true)):
			passed++
		case v == "n/a": // plain was not measured: nothing proves the goal
			missed = append(missed, g.num+" on "+strings.TrimSuffix(labels[g.fig], ":")+" (n/a)")
		default:
			missed = append(missed, g.num+" on "+strings.TrimSuffix(labels[g.fig], ":"))
		}
	}
	if all > 0 {
		fmt.Fprintf(b, "- %s %d of %d — no-fault path (mcpchaos tcp and http, no rule) ≥ %.2f× plain on every rate figure above",
			passMiss(passed == all), passed, all, noFaultMin)
		if len(missed) > 0 {
			fmt.Fprintf(b, "; missed: %s", strings.Join(missed, "; "))
		}
		b.WriteString("\n")
	}
	for _, g := range otherGoals(cfg) {
		if taken(g) {
			line(g)
		}
	}
}

// verdict checks one goal: PASS, MISS, or n/a when it was not measured.
// A figure that failed (an exchange refused or cut) is a MISS naming why.
func verdict(st *store, g goal) string {
	failed := ""
	for _, id := range []string{g.okID, g.fig} {
		if f := st.failures(id, g.num); id != "" && len(f) > 0 && failed == "" {
			failed = passMiss(false) + " failed: " + strings.Join(uniq(f), ", ")
		}
	}
	if g.den != "" {
		v, n := st.ratio(g.fig, g.num, g.den)
		if failed != "" {
			return failed
		}
		if n == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%s %.2f×", passMiss(v >= g.min), v)
	}
	v, n := st.median(g.fig, g.num)
	if n == 0 {
		if failed != "" {
			return failed
		}
		return "n/a"
	}
	if failed != "" {
		return fmt.Sprintf("%s (%.3g)", failed, v)
	}
	ok := v <= g.max
	extra := ""
	if g.needID != "" {
		got, _ := st.median(g.needID, g.num)
		ok = ok && got == g.need
		extra = fmt.Sprintf(", %.0f/%.0f reached", got, g.need)
	}
	return fmt.Sprintf("%s %.3g%s", passMiss(ok), v, extra)
}

func passMiss(ok bool) string {
	if ok {
		return "**PASS**"
	}
	return "**MISS**"
}

// uniq returns the distinct strings of ss in the order first seen.
func uniq(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
