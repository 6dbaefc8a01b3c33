package simtest

// Score counts, per finding ID, true positives, false positives
// (a finding not labelled, or resting on another fact than its label's)
// and misses.
type Score struct{ TP, FP, FN int }

func (s Score) Precision() float64 { return ratio(s.TP, s.TP+s.FP) }

func (s Score) Recall() float64 { return ratio(s.TP, s.TP+s.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}
