package load

import (
	"slices"
	"time"
)

// percentiles returns the p50 and p99 of samples (nanoseconds), sorting
// samples in place. Both are zero for no samples.
func percentiles(samples []int64) (p50, p99 time.Duration) {
	if len(samples) == 0 {
		return 0, 0
	}
	slices.Sort(samples)
	return time.Duration(rank(samples, 0.50)), time.Duration(rank(samples, 0.99))
}

// rank is the nearest-rank percentile of sorted samples.
func rank(sorted []int64, q float64) int64 {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
