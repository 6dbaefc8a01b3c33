package harness

import (
	"encoding/json"
	"math"
	"os"
	"slices"
)

// store holds every figure: round → metric → target → value.
type store struct {
	rounds []map[string]map[string]float64
}

func newStore(rounds int) *store {
	s := &store{rounds: make([]map[string]map[string]float64, rounds)}
	for i := range s.rounds {
		s.rounds[i] = map[string]map[string]float64{}
	}
	return s
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
	var vs []float64
	for r := range s.rounds {
		a, ok1 := s.get(r, metric, num)
		b, ok2 := s.get(r, metric, den)
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

// writeRaw writes every figure as JSON to path.
func (s *store) writeRaw(path string) error {
	b, err := json.MarshalIndent(s.rounds, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
