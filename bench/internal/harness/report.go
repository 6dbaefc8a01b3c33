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
	// base, for a figure measured under a fault, is the same measurement
	// with no fault: the plain proxy and direct, which take no fault,
	// are read from it when they divide this row.
	base string
}

// sizeLabel prints a byte count as MiB, or GiB from 1 GiB up.
func sizeLabel(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%g GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

func figures(cfg *Config) []figure {
	gib := sizeLabel(cfg.BulkBytes)
	big := sizeLabel(cfg.BigBytes)
	faulted := fmt.Sprintf("latency %v both ways", bigDelay)
	return []figure{
		{"ka1.rps", "HTTP keep-alive, 1 conn: req/s", "%.0f", figRate, ""},
		{"ka1.p50", "… p50 µs", "%.0f", figPlain, ""},
		{"ka1.p99", "… p99 µs", "%.0f", figPlain, ""},
		{"ka32.rps", "HTTP keep-alive, 32 conns: req/s", "%.0f", figRate, ""},
		{"ka32.p50", "… p50 µs", "%.0f", figPlain, ""},
		{"ka32.p99", "… p99 µs", "%.0f", figPlain, ""},
		{"new8.rps", fmt.Sprintf("HTTP new conn per request, %d concurrent: req/s", cfg.NewConnWorkers), "%.0f", figRate, ""},
		{"new8.p50", "… p50 µs", "%.0f", figPlain, ""},
		{"new8.p99", "… p99 µs", "%.0f", figPlain, ""},
		{"bulk.down", "bulk TCP " + gib + " upstream→client: GiB/s", "%.2f", figRate, ""},
		{"bulk.up", "bulk TCP " + gib + " client→upstream: GiB/s", "%.2f", figRate, ""},
		{"big.up", "HTTP POST, " + big + " body, no fault: MiB/s", "%.0f", figRate, ""},
		{"big.up.rss", "… proxy peak RSS above rest: MiB", "%.1f", figPlain, ""},
		{"big.down", "HTTP GET, " + big + " body, no fault: MiB/s", "%.0f", figRate, ""},
		{"big.down.rss", "… proxy peak RSS above rest: MiB", "%.1f", figPlain, ""},
		{"big.rest", "… proxy RSS at rest (fresh process): MiB", "%.1f", figPlain, ""},
		{"bigf.up", "HTTP POST, " + big + " body, " + faulted + ": MiB/s", "%.0f", figRate, "big.up"},
		{"bigf.up.rss", "… proxy peak RSS above rest: MiB", "%.1f", figPlain, ""},
		{"bigf.down", "HTTP GET, " + big + " body, " + faulted + ": MiB/s", "%.0f", figRate, "big.down"},
		{"bigf.down.rss", "… proxy peak RSS above rest: MiB", "%.1f", figPlain, ""},
		{"ka1.cpu", "proxy CPU per request, keep-alive 1 conn: µs", "%.1f", figCost, ""},
		{"ka32.cpu", "proxy CPU per request, keep-alive 32 conns: µs", "%.1f", figCost, ""},
		{"new8.cpu", "proxy CPU per request, new conn: µs", "%.1f", figCost, ""},
		{"bulk.cpu", "proxy CPU per GiB (both ways): s", "%.2f", figCost, ""},
		{"mem.kib", fmt.Sprintf("RSS per idle proxied connection (%d): KiB", cfg.IdleConns), "%.1f", figCost, ""},
		{"rule.call", fmt.Sprintf("rule change, %d live conns: control call ms", cfg.LiveConns), "%.3f", figCost, ""},
		{"rule.inner", "… inside the proxy process: ms", "%.3f", figPlain, ""},
		{"rule.all", fmt.Sprintf("… until all %d saw it: ms", cfg.LiveConns), "%.2f", figPlain, ""},
		{"rule.floor", "… probe floor, no fault: ms", "%.2f", figPlain, ""},
		{"rule.ended", fmt.Sprintf("… connections ended by it (of %d)", cfg.LiveConns), "%.0f", figPlain, ""},
	}
}

// ratioCol is one column of the ratio table.
type ratioCol struct {
	num, den string
	rateOnly bool // only for figRate rows (÷ direct)
}

func ratioCols() []ratioCol {
	return []ratioCol{
		{tMcpTCP, tPlain, false}, {tMcpHTTP, tPlain, false}, {tFwdHTTP, tPlain, false}, {tFwdTunnel, tPlain, false},
		{tFwdHTTP, tMcpHTTP, false}, {tFwdTunnel, tMcpTCP, false},
		{tMcpTCP, tToxi, false}, {tMcpHTTP, tToxi, false},
		{tPlain, tDirect, true}, {tMcpTCP, tDirect, true}, {tMcpHTTP, tDirect, true}, {tToxi, tDirect, true},
	}
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
			den := f.id
			if f.base != "" && (rc.den == tPlain || rc.den == tDirect) {
				den = f.base
			}
			if v, n := st.ratioOf(f.id, rc.num, den, rc.den); n > 0 {
				cells[i] = fmt.Sprintf("%.2f×", v)
			} else if fails := st.failures(f.id, rc.num); len(fails) > 0 {
				cells[i] = "failed"
			}
		}
		fmt.Fprintf(&b, "| %s | %s |\n", f.label, strings.Join(cells, " | "))
	}
	fmt.Fprintf(&b, "\nA row measured under a fault is divided, for plain and direct (which take no fault), "+
		"by their figure with no fault: the physical limit.\n")

	fmt.Fprintf(&b, "\nTargets\n\n")
	labels := map[string]string{}
	parent := ""
	for _, f := range figs {
		// A "… x" row continues the row above: named alone in a target
		// line, it says what it continues.
		if rest, ok := strings.CutPrefix(f.label, "… "); ok && parent != "" {
			labels[f.id] = parent + ", " + rest
			continue
		}
		labels[f.id] = f.label
		parent, _, _ = strings.Cut(f.label, ":")
	}
	writeGoals(&b, cfg, st, present, labels)
	_, err := io.WriteString(w, b.String())
	return err
}

// cell is a median, with the number of rounds behind it when some round
// did not measure it, and why a round failed to (e.g. "failed: 413").
func cell(st *store, f figure, target string, rounds int) string {
	v, n := st.median(f.id, target)
	fails := uniq(st.failures(f.id, target))
	var s string
	switch {
	case n > 0 && !math.IsNaN(v):
		s = fmt.Sprintf(f.format, v)
		if n < rounds {
			s += fmt.Sprintf(" (%d/%d)", n, rounds)
		}
		if len(fails) > 0 {
			s += ", failed: " + strings.Join(fails, ", ")
		}
	case len(fails) > 0:
		s = "failed: " + strings.Join(fails, ", ")
	default:
		s = "–"
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
