package agentsim

import (
	"bufio"
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// corpusLabel is one line of testdata/corpus_labels.txt.
type corpusLabel struct {
	server, scenario string
	hosts            []string
	want             map[string]string // ID → the fact it must rest on
	line             int
}

func readCorpusLabels(t *testing.T) []corpusLabel {
	t.Helper()
	f, err := os.Open("testdata/corpus_labels.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusLabel
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 4 {
			t.Fatalf("corpus_labels.txt:%d: want SERVER SCENARIO HOSTS FINDINGS", n)
		}
		l := corpusLabel{server: fields[0], scenario: fields[1], want: map[string]string{}, line: n}
		l.hosts = []string{fields[2]}
		if fields[2] == "*" {
			l.hosts = []string{"swallow", "generic", "raw"}
		}
		for _, f := range fields[3:] {
			if f == "-" {
				continue
			}
			id, fact, ok := strings.Cut(f, ":")
			if !ok || !slices.Contains([]string{"outcome", "exchange", "probe", "protocol", "text"}, fact) {
				t.Fatalf("corpus_labels.txt:%d: %q is not ID:FACT", n, f)
			}
			l.want[id] = fact
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// restsOn reports whether a finding's evidence states the fact its label
// says it must rest on. Protocol and text facts are the check's own
// reading of the reply and are not marked in evidence.
func restsOn(fact, evidence string) bool {
	switch fact {
	case "outcome":
		return strings.Contains(evidence, "outcome ")
	case "probe":
		return strings.Contains(evidence, "source: probe")
	case "exchange":
		return strings.Contains(evidence, "source: exchanges")
	}
	return true
}

// corpusPins are the precision and recall measured for each
// error-severity finding on the labelled corpus; the test fails when one
// drops below. A finding with no label and no firing scores 1. MC002's
// false positives are the silent server (hanging): the agent does spend
// its budget, but the failure is a server that hangs on its own, which has
// no finding of its own yet.
var corpusPins = map[string][2]float64{
	"MC001": {1, 1},
	"MC002": {0.75, 1},
	"MC003": {1, 1},
	"MC004": {1, 1},
	"MC007": {1, 1},
	"MC008": {1, 1},
	"MC009": {1, 1},
	"MC012": {1, 1},
}

// TestCorpusPrecision scores the judge against labels written from the
// servers' code before it ran (testdata/corpus_labels.txt), and prints
// per-finding true positives, false positives and misses.
func TestCorpusPrecision(t *testing.T) {
	bins := buildCorpus(t)
	labels := readCorpusLabels(t)
	var mu sync.Mutex
	scores := map[string]*simtest.Score{}
	score := func(id string) *simtest.Score {
		if scores[id] == nil {
			scores[id] = &simtest.Score{}
		}
		return scores[id]
	}
	t.Run("cells", func(t *testing.T) {
		for _, l := range labels {
			t.Run(l.server+"/"+l.scenario, func(t *testing.T) {
				t.Parallel()
				if bins[l.server] == "" {
					t.Fatalf("corpus_labels.txt:%d: no server %q", l.line, l.server)
				}
				runs := runCorpusCell(t, bins[l.server], l.scenario, l.hosts)
				mu.Lock()
				defer mu.Unlock()
				for _, r := range runs {
					got := findingEvidence(r)
					for id, ev := range got {
						fact, want := l.want[id]
						switch {
						case !want:
							score(id).FP++
							t.Logf("false positive %s under %s: %s%s", id, r.Host, ev, transcriptOf(r))
						case !restsOn(fact, ev):
							score(id).FP++
							score(id).FN++
							t.Logf("%s under %s does not rest on %s: %s", id, r.Host, fact, ev)
						default:
							score(id).TP++
						}
					}
					for id := range l.want {
						if _, ok := got[id]; !ok {
							score(id).FN++
							t.Logf("missed %s under %s (corpus_labels.txt:%d)%s", id, r.Host, l.line, transcriptOf(r))
						}
					}
				}
			})
		}
	})
	var ids []string
	for id := range scores {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s %4s %4s %4s %9s %6s\n", "id", "tp", "fp", "miss", "precision", "recall")
	for _, id := range ids {
		s := scores[id]
		fmt.Fprintf(&b, "%-6s %4d %4d %4d %9.2f %6.2f\n", id, s.TP, s.FP, s.FN, s.Precision(), s.Recall())
	}
	t.Logf("findings against corpus_labels.txt:\n%s", b.String())
	for id, pin := range corpusPins {
		s := simtest.Score{}
		if scores[id] != nil {
			s = *scores[id]
		}
		if s.Precision() < pin[0] || s.Recall() < pin[1] {
			t.Errorf("%s: precision %.2f recall %.2f, pinned at %.2f %.2f", id, s.Precision(), s.Recall(), pin[0], pin[1])
		}
	}
}
