package reader

import (
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// The estimate is a second opinion on one question the phrase rules
// answer badly on wordings they were never tuned on: does this error
// reply give guidance at all? The rules stay the reader: they say which
// guidance (a bound, a tool, an argument), and the simulated agent acts
// on them alone. The estimate only says how likely it is that guidance
// the rules did not read is there, so that a finding claiming its
// absence (MC005, MC006, MC004's "does not say the outcome is unknown")
// is not made on a reply that probably has it, and a retry loop after
// such a reply (MC002) is not blamed on the server alone.
//
// The model is a logistic regression over the words of the reply and
// their adjacent pairs, trained on the DEV half of the labelled corpus
// (testdata/corpus) by TestEstimateModel, which also checks that the
// embedded file is what training on the current corpus produces; the
// TEST half is never trained on. docs/reader.md has the method and its
// figures.

// Estimate is the trained model's second opinion on an error reply,
// computed only for what the rules left open (a success, an unread reply
// and guidance the rules read get zero values).
type Estimate struct {
	// Retry: the reply says whether to retry — not at all, a bounded
	// number of times, or after a check. Computed when the rules read no
	// retry guidance or only an unbounded one.
	Retry Likelihood `json:"retry,omitzero"`
	// Next: it names a next step — a listed tool, an argument of the
	// current tool, or the user. Computed when the rules read none.
	Next Likelihood `json:"next,omitzero"`
	// Unknown: it states that the outcome of the write is unknown.
	// Computed when the rules did not read that.
	Unknown Likelihood `json:"unknown,omitzero"`
	// Stated: it states what became of the write, unknown or done ("the
	// entry is on our side now"). Computed when the rules read neither.
	// A claim that the write is done is the truth only when the upstream
	// committed, so the judge weighs it only where the exchange shows a
	// commit.
	Stated Likelihood `json:"stated,omitzero"`
}

// Likelihood is one model's estimate.
type Likelihood struct {
	// P is the probability the model gives.
	P float64 `json:"p"`
	// Likely: P is at or above the model's threshold, the probability
	// above which the model alone was right at least 95% of the time in
	// cross-validation on the DEV half of the corpus.
	Likely bool `json:"likely,omitempty"`
	// Quote is the sentence that weighed most for it.
	Quote string `json:"quote,omitempty"`
}

// estimateKind indexes the models.
type estimateKind int

const (
	estimateRetry estimateKind = iota
	estimateNext
	estimateUnknown
	estimateStated
	numEstimates
)

var estimateNames = [numEstimates]string{"retry", "next", "unknown", "stated"}

// estimateSet is the logistic regressions, one per kind, with the
// weights of a feature held together so that reading looks each feature
// up once.
type estimateSet struct {
	bias      [numEstimates]float64
	threshold [numEstimates]float64 // 0: training found none it could trust
	weights   map[uint64][numEstimates]float64
}

//go:embed estimate.model
var estimateFile string

// estimateModels parses the embedded model once.
var estimateModels = sync.OnceValue(func() *estimateSet {
	m, err := parseEstimate(estimateFile)
	if err != nil {
		panic(fmt.Sprintf("reader: embedded estimate.model: %v", err)) // a build defect, caught by every test
	}
	return m
})

// parseEstimate reads the model file: lines "threshold\tMODEL\tP" and
// "MODEL\tFEATURE\tWEIGHT", MODEL one of estimateNames, FEATURE "<bias>",
// one word or two words joined by a space; "#" starts a comment line.
func parseEstimate(s string) (*estimateSet, error) {
	m := &estimateSet{weights: map[uint64][numEstimates]float64{}}
	kind := func(name string) (estimateKind, bool) {
		for k, n := range estimateNames {
			if n == name {
				return estimateKind(k), true
			}
		}
		return 0, false
	}
	for n, line := range strings.Split(s, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want 3 tab-separated fields, got %d", n+1, len(f))
		}
		name, feature := f[0], f[1]
		if name == "threshold" {
			name, feature = f[1], "<threshold>"
		}
		k, ok := kind(name)
		if !ok {
			return nil, fmt.Errorf("line %d: unknown model %q", n+1, name)
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", n+1, feature, err)
		}
		switch feature {
		case "<threshold>":
			m.threshold[k] = v
		case "<bias>":
			m.bias[k] = v
		default:
			h := featureHash(feature)
			w := m.weights[h]
			w[k] = v
			m.weights[h] = w
		}
	}
	return m, nil
}

// estimateGuidance fills the estimates for what the rules left open.
func estimateGuidance(p *prepared, ctx Context, s *Signals) {
	var need [numEstimates]bool
	need[estimateRetry] = s.Retry.Kind == RetryNone || s.Retry.Kind == RetryUnbounded
	need[estimateNext] = len(s.Next.Tools) == 0 && len(s.Args) == 0 && !s.User.Set
	need[estimateUnknown] = s.Outcome.State != OutcomeUnknown
	need[estimateStated] = s.Outcome.State != OutcomeUnknown && s.Outcome.State != OutcomeCommitted
	if need == [numEstimates]bool{} {
		return
	}
	m := estimateModels()
	z := m.bias
	var sum, best [numEstimates]float64
	bestAt := [numEstimates]int{-1, -1, -1, -1}
	cur := -1
	eachFeature(p, ctx, func(si int, f []byte) {
		if si != cur {
			cur, sum = si, [numEstimates]float64{}
		}
		w, ok := m.weights[featureHash(f)]
		if !ok {
			return
		}
		for k := range numEstimates {
			z[k] += w[k]
			if sum[k] += w[k]; sum[k] > best[k] {
				best[k], bestAt[k] = sum[k], si
			}
		}
	})
	out := [numEstimates]*Likelihood{&s.Estimate.Retry, &s.Estimate.Next, &s.Estimate.Unknown, &s.Estimate.Stated}
	for k := range numEstimates {
		if !need[k] {
			continue
		}
		l := Likelihood{P: sigmoid(z[k])}
		l.Likely = m.threshold[k] > 0 && l.P >= m.threshold[k]
		if bestAt[k] >= 0 {
			l.Quote = p.quote(p.sents[bestAt[k]]).Quote
		}
		*out[k] = l
	}
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// featureHash is FNV-1a of a feature's text.
func featureHash[T string | []byte](f T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(f); i++ {
		h ^= uint64(f[i])
		h *= 1099511628211
	}
	return h
}

// eachFeature calls fn with each feature of p, sentence by sentence (si
// is the sentence's index; f is valid only during the call): every word
// and every pair of adjacent words, the first paired with "<s>". The
// current tool is written "<cur>", another listed tool "<tool>", a schema
// argument "<param>" and a word that starts with a digit "<num>": what is
// learnt is how guidance is worded, not which names a server has.
func eachFeature(p *prepared, ctx Context, fn func(si int, f []byte)) {
	names := wordNames(ctx)
	var buf [2 * 64]byte
	for si, sp := range p.sents {
		low := p.low(sp)
		prev := "<s>"
		for i := 0; i < len(low); {
			if !isWordByte(low[i]) {
				i++
				continue
			}
			j := i
			for j < len(low) && isWordByte(low[j]) {
				j++
			}
			w := normWord(low[i:j], names)
			i = j
			fn(si, append(buf[:0], w...))
			fn(si, append(append(append(buf[:0], prev...), ' '), w...))
			prev = w
		}
	}
}

// wordName is a name of the context, lower-cased, and what it stands as.
type wordName struct{ name, as string }

// wordNames lists the context's names in the order normWord tries them.
func wordNames(ctx Context) []wordName {
	out := []wordName{{asciiLower(ctx.Current.Name), "<cur>"}}
	for _, t := range ctx.Tools {
		out = append(out, wordName{asciiLower(t.Name), "<tool>"})
	}
	for _, pa := range ctx.Current.Params {
		out = append(out, wordName{asciiLower(pa), "<param>"})
	}
	return out
}

// normWord is a (lower-case) word as the model sees it.
func normWord(w string, names []wordName) string {
	if w[0] >= '0' && w[0] <= '9' {
		return "<num>"
	}
	for _, n := range names {
		if n.name == w {
			return n.as
		}
	}
	return w
}
