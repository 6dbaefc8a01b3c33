package frontbench

import (
	"fmt"
	"slices"
	"time"
)

// report writes the medians over rounds, and for each front the medians
// of its per-round differences and ratios against its direct target.
func report(cfg Config, targets []target, all map[string][]figures) {
	w := cfg.Out
	fmt.Fprintf(w, "%d rounds, interleaved; latency: %d sequential calls per target and round; throughput: %d concurrent callers × %d calls on one session.\n\n",
		cfg.Rounds, cfg.Calls, cfg.Workers, cfg.PerWorker)
	fmt.Fprintln(w, "| target | p50 latency | p99 latency | calls/s | front CPU per call |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, tg := range targets {
		fs := all[tg.name]
		cpu := "–"
		if tg.base != "" {
			cpu = medianDur(fs, func(f figures) time.Duration { return f.cpu }).String()
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.0f | %s |\n", tg.name,
			medianDur(fs, func(f figures) time.Duration { return f.p50 }),
			medianDur(fs, func(f figures) time.Duration { return f.p99 }),
			median(fs, func(f figures) float64 { return f.rate }), cpu)
	}
	fmt.Fprintln(w, "\nAgainst the direct target, per round then the median:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| front | added p50 latency per call | calls/s ratio |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, tg := range targets {
		if tg.base == "" {
			continue
		}
		fs, base := all[tg.name], all[tg.base]
		var added []float64
		var ratio []float64
		for i := range min(len(fs), len(base)) {
			added = append(added, float64(fs[i].p50-base[i].p50))
			ratio = append(ratio, fs[i].rate/base[i].rate)
		}
		fmt.Fprintf(w, "| %s | %s | %.2f× |\n", tg.name, time.Duration(medianOf(added)).Round(time.Microsecond), medianOf(ratio))
	}
}

func median(fs []figures, get func(figures) float64) float64 {
	var v []float64
	for _, f := range fs {
		v = append(v, get(f))
	}
	return medianOf(v)
}

func medianDur(fs []figures, get func(figures) time.Duration) time.Duration {
	return time.Duration(median(fs, func(f figures) float64 { return float64(get(f)) })).Round(time.Microsecond)
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
