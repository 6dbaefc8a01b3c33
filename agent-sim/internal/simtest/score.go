package simtest

// Score counts, per finding ID, true positives, false positives
// (a finding not labelled, or resting on another fact than its label's)
// and misses.
type Score struct{ TP, FP, FN int }

// Precision is TP / (TP + FP), 1 with nothing reported.
func (s Score) Precision() float64 { return ratio(s.TP, s.TP+s.FP) }

// Recall is TP / (TP + FN), 1 with nothing to find.
func (s Score) Recall() float64 { return ratio(s.TP, s.TP+s.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}
