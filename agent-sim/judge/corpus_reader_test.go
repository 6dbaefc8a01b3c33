package judge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/inject"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/reader/corpus"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// The judge on the reader's labelled corpus (agent-sim/reader/testdata/
// corpus, format in its FORMAT.md): each entry is one reply in its
// context, labelled with the findings a careful human expects, written
// before any code read it. The test builds the smallest judge input for
// that one reply and scores the judge per finding.

// replyEntry is one labelled reply.
type replyEntry = corpus.Entry

func loadReplyCorpus(t *testing.T) []replyEntry {
	t.Helper()
	entries, err := corpus.Load(filepath.Join("..", "reader", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	return corpus.Only(entries, os.Getenv("READER_CORPUS_ARCHIVES"))
}

// judgeInputFor is the minimal judge input for one labelled reply: one
// call of the labelled tool on the labelled channel, the listed tools
// (the called one with its schema arguments and its writes flag), a fault
// record with the labelled outcome, and the run's internal values.
func judgeInputFor(t *testing.T, e replyEntry) Input {
	t.Helper()
	l := e.Labels
	c := transcript.Call{N: 1, Step: 1, Tool: l.Tool, Attempt: 1, Channel: transcript.Channel(l.Channel), Text: e.Text}
	if c.Channel == transcript.ChannelProtocolError {
		c.Code = -32603
	}
	if e.Structured != nil {
		var v any
		if err := json.Unmarshal(e.Structured, &v); err != nil {
			t.Fatalf("%s: structured content: %v", e.ID, err)
		}
		b, _ := json.Marshal(v)
		if c.Text == "" {
			c.Text = string(b) // as the driver does: it stands in for text
		} else {
			c.Structured = b
		}
	}
	if l.Fault != "" && l.Fault != "none" {
		o := inject.Outcome(l.Fault)
		if !slices.Contains(inject.Outcomes(), o) {
			t.Fatalf("%s: fault %q is not an outcome", e.ID, l.Fault)
		}
		c.Injections = []string{"corpus fault"}
		c.Faults = []transcript.InjectionRecord{{Rule: "corpus fault", Kind: "corpus", Outcome: o, ServerKnows: l.ServerKnows, Hits: 1}}
		c.Exchanges = 1
		if o == inject.OutcomeUnknown {
			// The label says no one knows whether the upstream committed:
			// the run holds no exchange that says either way.
			c.Exchanges = 0
		}
		if o.Commits() == "yes" {
			// The outcome declares the upstream committed: that is what
			// the exchange shows in a run.
			c.Committed = 1
		}
	}
	var tools []transcript.Tool
	for _, n := range l.Tools {
		tl := transcript.Tool{Name: n, ReadOnly: true}
		if n == l.Tool {
			tl.Params, tl.ReadOnly = l.Params, !l.Writes
		}
		tools = append(tools, tl)
	}
	if !slices.Contains(l.Tools, l.Tool) {
		tools = append(tools, transcript.Tool{Name: l.Tool, Params: l.Params, ReadOnly: !l.Writes})
	}
	return Input{Calls: []transcript.Call{c}, Tools: tools, Converged: true, Budget: 10,
		WriteTools: map[string]bool{l.Tool: l.Writes}, Internal: l.Internal}
}

// replyFindingIDs are the findings the corpus labels.
var replyFindingIDs = []string{"MC004", "MC005", "MC006", "MC007", "MC008", "MC010"}

// replyPins are the precision and recall the judge reaches on the
// corpus (precision, recall), over all entries and over the TEST split,
// as last measured (rounded down); the test fails when a figure drops
// below its pin. The target is 0.95 everywhere; what is missing on TEST is
// the reader's recall of guidance in wordings it was not tuned on (MC005,
// MC006 fire where the reply did guide).
var replyPins = map[string]struct{ all, test [2]float64 }{
	"MC004": {[2]float64{0.88, 0.99}, [2]float64{0.8, 0.98}},
	"MC005": {[2]float64{0.94, 0.95}, [2]float64{0.89, 0.93}},
	"MC006": {[2]float64{0.95, 0.95}, [2]float64{0.9, 0.92}},
	"MC007": {[2]float64{0.91, 0.92}, [2]float64{0.89, 0.91}},
	"MC008": {[2]float64{0.99, 0.99}, [2]float64{0.99, 0.99}},
	"MC010": {[2]float64{0.94, 0.76}, [2]float64{0.9, 0.58}},
}

// replyCarefulErrorsPin is the most error-severity findings allowed on
// entries labelled careful: the target is none; those that stand are all
// on TEST entries of the blind batches.
const replyCarefulErrorsPin = 9

// TestJudgeReplyCorpus scores the judge's reply findings against the
// corpus labels, per finding, over all entries and over the TEST split. A
// finding counts as raised at warning or error severity: info is the
// honest "could not read", not a claim. Mismatches are logged for DEV
// entries only.
func TestJudgeReplyCorpus(t *testing.T) {
	entries := loadReplyCorpus(t)
	all, test := map[string]*simtest.Score{}, map[string]*simtest.Score{}
	for _, id := range replyFindingIDs {
		all[id], test[id] = &simtest.Score{}, &simtest.Score{}
	}
	carefulErrors, nTest := 0, 0
	carefulByID := map[string]int{} // counts only: TEST entries are not shown
	for _, e := range entries {
		if e.Test {
			nTest++
		}
		got := map[string]Finding{}
		for _, f := range Judge(judgeInputFor(t, e)) {
			if f.Severity != SeverityInfo {
				got[f.ID] = f
			}
			if e.Labels.Careful && f.Severity == SeverityError {
				carefulErrors++
				carefulByID[f.ID+" ("+string(f.Basis)+")"]++
				if !e.Test {
					t.Logf("%s %s: error on a careful reply: %s %s", e.Archive, e.ID, f.ID, f.Evidence)
				}
			}
		}
		for _, id := range replyFindingIDs {
			_, fired := got[id]
			want := slices.Contains(e.Labels.Findings, id)
			for _, s := range []map[string]*simtest.Score{all, test} {
				if s == nil {
					continue
				}
				switch {
				case fired && want:
					s[id].TP++
				case fired:
					s[id].FP++
				case want:
					s[id].FN++
				}
				if !e.Test {
					break // only the first map (all) for DEV entries
				}
			}
			if !e.Test && fired != want {
				t.Logf("%s %s: %s fired=%v want=%v: %s", e.Archive, e.ID, id, fired, want, got[id].Evidence)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d entries (%d in TEST); error findings on careful entries: %d %v\n", len(entries), nTest, carefulErrors, carefulByID)
	fmt.Fprintf(&b, "%-6s %-28s %-28s\n", "id", "all P / R (tp fp fn)", "test P / R (tp fp fn)")
	for _, id := range replyFindingIDs {
		a, s := all[id], test[id]
		fmt.Fprintf(&b, "%-6s %.2f / %.2f (%3d %2d %2d)    %.2f / %.2f (%3d %2d %2d)\n", id,
			a.Precision(), a.Recall(), a.TP, a.FP, a.FN, s.Precision(), s.Recall(), s.TP, s.FP, s.FN)
	}
	t.Logf("judge on the reply corpus:\n%s", b.String())
	if os.Getenv("READER_CORPUS_ARCHIVES") != "" {
		t.Log("READER_CORPUS_ARCHIVES is set: pins not checked on a part of the corpus")
		return
	}
	for id, pin := range replyPins {
		a, s := all[id], test[id]
		if a.Precision() < pin.all[0] || a.Recall() < pin.all[1] || s.Precision() < pin.test[0] || s.Recall() < pin.test[1] {
			t.Errorf("%s: all %.2f/%.2f test %.2f/%.2f, pinned at all %.2f/%.2f test %.2f/%.2f", id,
				a.Precision(), a.Recall(), s.Precision(), s.Recall(), pin.all[0], pin.all[1], pin.test[0], pin.test[1])
		}
	}
	if carefulErrors > replyCarefulErrorsPin {
		t.Errorf("%d error-severity findings on careful entries, pinned at %d", carefulErrors, replyCarefulErrorsPin)
	}
}
