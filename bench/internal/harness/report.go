package harness

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"
)

// Kinds of figure, which decide the ratios a row gets.
const (
	figRate  = iota // higher is better: every ratio, ÷ direct included
	figCost         // lower is better, proxies only: proxy-to-proxy ratios
	figPlain        // printed without ratios (latencies, counts)
)

// figure is one row of the report.
type figure struct {
	id, label, format string
	kind              int
}

func figures(cfg *Config) []figure {
	gib := fmt.Sprintf("%d MiB", cfg.BulkBytes>>20)
	if cfg.BulkBytes >= 1<<30 {
		gib = fmt.Sprintf("%g GiB", float64(cfg.BulkBytes)/(1<<30))
	}
	return []figure{
		{"ka1.rps", "HTTP keep-alive, 1 conn: req/s", "%.0f", figRate},
		{"ka1.p50", "… p50 µs", "%.0f", figPlain},
		{"ka1.p99", "… p99 µs", "%.0f", figPlain},
		{"ka32.rps", "HTTP keep-alive, 32 conns: req/s", "%.0f", figRate},
		{"ka32.p50", "… p50 µs", "%.0f", figPlain},
		{"ka32.p99", "… p99 µs", "%.0f", figPlain},
		{"new8.rps", fmt.Sprintf("HTTP new conn per request, %d concurrent: req/s", cfg.NewConnWorkers), "%.0f", figRate},
		{"new8.p50", "… p50 µs", "%.0f", figPlain},
		{"new8.p99", "… p99 µs", "%.0f", figPlain},
		{"bulk.down", "bulk TCP " + gib + " upstream→client: GiB/s", "%.2f", figRate},
		{"bulk.up", "bulk TCP " + gib + " client→upstream: GiB/s", "%.2f", figRate},
		{"ka1.cpu", "proxy CPU per request, keep-alive 1 conn: µs", "%.1f", figCost},
		{"ka32.cpu", "proxy CPU per request, keep-alive 32 conns: µs", "%.1f", figCost},
		{"new8.cpu", "proxy CPU per request, new conn: µs", "%.1f", figCost},
		{"bulk.cpu", "proxy CPU per GiB (both ways): s", "%.2f", figCost},
		{"mem.kib", fmt.Sprintf("RSS per idle proxied connection (%d): KiB", cfg.IdleConns), "%.1f", figCost},
		{"rule.call", fmt.Sprintf("rule change, %d live conns: control call ms", cfg.LiveConns), "%.3f", figCost},
		{"rule.inner", "… inside the proxy process: ms", "%.3f", figPlain},
		{"rule.all", fmt.Sprintf("… until all %d saw it: ms", cfg.LiveConns), "%.2f", figPlain},
		{"rule.floor", "… probe floor, no fault: ms", "%.2f", figPlain},
		{"rule.ended", fmt.Sprintf("… connections ended by it (of %d)", cfg.LiveConns), "%.0f", figPlain},
	}
}

// ratioCol is one column of the ratio table.
type ratioCol struct {
	num, den string
	rateOnly bool // only for figRate rows (÷ direct)
}

func ratioCols() []ratioCol {
	return []ratioCol{
		{tMcpTCP, tPlain, false}, {tMcpHTTP, tPlain, false},
		{tMcpTCP, tToxi, false}, {tMcpHTTP, tToxi, false},
		{tPlain, tDirect, true}, {tMcpTCP, tDirect, true}, {tMcpHTTP, tDirect, true}, {tToxi, tDirect, true},
	}
}

// goal is one target of the issue, checked against the figures: either
// the ratio fig(num)/fig(den) is at least min, or (den empty) fig(num) is
// at most max and, if needID is set, figure needID of num equals need.
type goal struct {
	label, fig, num, den string
	min, max, need       float64
	needID               string
}

func goals(cfg *Config) []goal {
	var gs []goal
	for _, f := range []string{"ka1.rps", "ka32.rps", "new8.rps", "bulk.down", "bulk.up"} {
		gs = append(gs, goal{label: "mcpchaos tcp ≥ 0.95× plain", fig: f, num: tMcpTCP, den: tPlain, min: 0.95})
		if !strings.HasPrefix(f, "bulk") {
			gs = append(gs, goal{label: "mcpchaos http ≥ 0.95× plain", fig: f, num: tMcpHTTP, den: tPlain, min: 0.95})
		}
	}
	gs = append(gs,
		goal{label: "mcpchaos tcp ≥ 1.5× Toxiproxy", fig: "new8.rps", num: tMcpTCP, den: tToxi, min: 1.5},
		goal{label: "mcpchaos http ≥ 1.5× Toxiproxy", fig: "new8.rps", num: tMcpHTTP, den: tToxi, min: 1.5},
		goal{label: "mcpchaos tcp ≥ 2.5× Toxiproxy", fig: "bulk.down", num: tMcpTCP, den: tToxi, min: 2.5},
		goal{label: "mcpchaos tcp ≥ 2.5× Toxiproxy", fig: "bulk.up", num: tMcpTCP, den: tToxi, min: 2.5},
		goal{label: "mcpchaos tcp ≤ 20 KiB per idle connection", fig: "mem.kib", num: tMcpTCP, max: 20},
		goal{label: "mcpchaos tcp: rule change on live connections ≤ 2 ms, all reached", fig: "rule.call", num: tMcpTCP, max: 2,
			needID: "rule.ended", need: float64(cfg.LiveConns)},
		goal{label: "mcpchaos http: rule change on live connections ≤ 2 ms, all reached", fig: "rule.call", num: tMcpHTTP, max: 2,
			needID: "rule.ended", need: float64(cfg.LiveConns)},
	)
	return gs
}

// writeReport prints the figures table, the ratio table and the goals.
func writeReport(w io.Writer, cfg *Config, st *store, targets []*target, failures int, took time.Duration) error {
	present := map[string]bool{}
	for _, t := range targets {
		present[t.name] = true
	}
	var cols []string
	for _, n := range targetOrder() {
		if present[n] {
			cols = append(cols, n)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## mcpchaos benchmark\n\n")
	fmt.Fprintf(&b, "%d round(s), interleaved (each test runs every target in turn; the order rotates each round). "+
		"Figures are medians over rounds; ratios are medians of per-round ratios. "+
		"HTTP loads: %v measured after %v warm-up. nproc=%d, %s %s/%s. Run took %v.\n\n",
		cfg.Rounds, cfg.Window, cfg.Warmup, runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH, took.Round(time.Second))
	if failures > 0 {
		fmt.Fprintf(&b, "**%d load(s) discarded because a worker failed** (see the log).\n\n", failures)
	}

	figs := figures(cfg)
	fmt.Fprintf(&b, "| measurement | %s |\n|---|%s\n", strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)))
	for _, f := range figs {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = cell(st, f, c, cfg.Rounds)
		}
		fmt.Fprintf(&b, "| %s | %s |\n", f.label, strings.Join(cells, " | "))
	}

	rcs := ratioCols()
	var heads []string
	var used []ratioCol
	for _, rc := range rcs {
		if present[rc.num] && present[rc.den] {
			heads = append(heads, short(rc.num)+" ÷ "+short(rc.den))
			used = append(used, rc)
		}
	}
	fmt.Fprintf(&b, "\nRatios (rates: higher is better; costs: lower is better)\n\n")
	fmt.Fprintf(&b, "| measurement | %s |\n|---|%s\n", strings.Join(heads, " | "), strings.Repeat("---:|", len(used)))
	for _, f := range figs {
		if f.kind == figPlain {
			continue
		}
		cells := make([]string, len(used))
		for i, rc := range used {
			cells[i] = "–"
			if rc.rateOnly && f.kind != figRate {
				continue
			}
			if v, n := st.ratio(f.id, rc.num, rc.den); n > 0 {
				cells[i] = fmt.Sprintf("%.2f×", v)
			}
		}
		fmt.Fprintf(&b, "| %s | %s |\n", f.label, strings.Join(cells, " | "))
	}

	fmt.Fprintf(&b, "\nTargets\n\n")
	labels := map[string]string{}
	for _, f := range figs {
		labels[f.id] = f.label
	}
	for _, g := range goals(cfg) {
		if !present[g.num] || (g.den != "" && !present[g.den]) {
			continue
		}
		fmt.Fprintf(&b, "- %s — %s: %s\n", verdict(st, g), g.label, strings.TrimSuffix(labels[g.fig], ":"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// verdict checks one goal: PASS, MISS, or n/a when it was not measured.
func verdict(st *store, g goal) string {
	if g.den != "" {
		v, n := st.ratio(g.fig, g.num, g.den)
		if n == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%s %.2f×", passMiss(v >= g.min), v)
	}
	v, n := st.median(g.fig, g.num)
	if n == 0 {
		return "n/a"
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

// cell is a median, with the number of rounds behind it when some round
// did not measure it.
func cell(st *store, f figure, target string, rounds int) string {
	v, n := st.median(f.id, target)
	if n == 0 || math.IsNaN(v) {
		return "–"
	}
	s := fmt.Sprintf(f.format, v)
	if n < rounds {
		s += fmt.Sprintf(" (%d/%d)", n, rounds)
	}
	return s
}

func short(target string) string {
	switch target {
	case tMcpTCP:
		return "mcp tcp"
	case tMcpHTTP:
		return "mcp http"
	case tToxi:
		return "toxi"
	}
	return target
}
