package harness

import (
	"encoding/json"
	"math"
	"os"
	"slices"
)

// store holds every figure: round → metric → target → value, and every
// measurement that failed instead of giving one: round → metric → target
// → a short reason ("413", "reset").
type store struct {
	rounds []map[string]map[string]float64
	fails  []map[string]map[string]string
}

func newStore(rounds int) *store {
	s := &store{
		rounds: make([]map[string]map[string]float64, rounds),
		fails:  make([]map[string]map[string]string, rounds),
	}
	for i := range s.rounds {
		s.rounds[i] = map[string]map[string]float64{}
		s.fails[i] = map[string]map[string]string{}
	}
	return s
}

// fail records that metric could not be measured on target this round,
// and why.
func (s *store) fail(round int, metric, target, reason string) {
	m := s.fails[round][metric]
	if m == nil {
		m = map[string]string{}
		s.fails[round][metric] = m
	}
	m[target] = reason
}

// failures returns the reasons metric failed on target, one per round
// that failed, in round order.
func (s *store) failures(metric, target string) []string {
	var out []string
	for r := range s.fails {
		if why, ok := s.fails[r][metric][target]; ok {
			out = append(out, why)
		}
	}
	return out
}

func (s *store) put(round int, metric, target string, v float64) {
	m := s.rounds[round][metric]
	if m == nil {
		m = map[string]float64{}
		s.rounds[round][metric] = m
	}
	m[target] = v
}

// get returns a figure and whether it was measured.
func (s *store) get(round int, metric, target string) (float64, bool) {
	v, ok := s.rounds[round][metric][target]
	return v, ok
}

// median is the median of metric for target over the rounds that measured
// it, and how many did.
func (s *store) median(metric, target string) (float64, int) {
	var vs []float64
	for r := range s.rounds {
		if v, ok := s.get(r, metric, target); ok {
			vs = append(vs, v)
		}
	}
	return median(vs), len(vs)
}

// ratio is the median over rounds of metric(num)/metric(den), each ratio
// taken within one round, so that drift of the shared machine between
// rounds cancels out.
func (s *store) ratio(metric, num, den string) (float64, int) {
	return s.ratioOf(metric, num, metric, den)
}

// ratioOf is ratio with the denominator read from another metric: a
// faulted figure of one target over the unfaulted figure of another.
func (s *store) ratioOf(numMetric, num, denMetric, den string) (float64, int) {
	var vs []float64
	for r := range s.rounds {
		a, ok1 := s.get(r, numMetric, num)
		b, ok2 := s.get(r, denMetric, den)
		if ok1 && ok2 && b != 0 {
			vs = append(vs, a/b)
		}
	}
	return median(vs), len(vs)
}

// median of vs; NaN for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	vs = slices.Clone(vs)
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// writeRaw writes every figure and every failure as JSON to path:
// {"figures": [round → metric → target → value], "failures": [round →
// metric → target → reason]}.
func (s *store) writeRaw(path string) error {
	b, err := json.MarshalIndent(map[string]any{"figures": s.rounds, "failures": s.fails}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
