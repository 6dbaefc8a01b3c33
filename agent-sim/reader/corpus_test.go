package reader

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/reader/corpus"
)

// entry is one labelled reply of the corpus.
type entry = corpus.Entry

// loadCorpus reads every testdata/corpus/*.txtar.
func loadCorpus(t *testing.T) []entry {
	t.Helper()
	entries, err := corpus.Load(filepath.Join("testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	return corpus.Only(entries, os.Getenv(archivesEnv))
}

// archivesEnv names the archives to score alone (comma-separated file
// name prefixes, "real3-"); the floors hold for the whole corpus only, so
// they are not checked then.
const archivesEnv = "READER_CORPUS_ARCHIVES"

// devFloor and testFloor pin each signal's precision and recall on the
// DEV and TEST splits as last measured, minus 0.03: a change to the
// reader may make none of them worse. Tuning reads DEV entries only; TEST
// is seen only through these aggregate figures, so a TEST floor catches a
// change that overfits DEV at the cost of replies it was not tuned on.
var devFloor = map[string][2]float64{ // {precision, recall}, measured on 3312 entries (1819 dev), minus 0.03
	"args":                  {0.84, 0.57},
	"leak=exception_class":  {0.9, 0.94},
	"leak=file_path":        {0.64, 0.84},
	"leak=host_port":        {0.96, 0.93},
	"leak=internal_host":    {0.65, 0.96},
	"leak=ip":               {0.73, 0.93},
	"leak=secret":           {0.96, 0.88},
	"leak=sql":              {0.79, 0.96},
	"leak=sqlstate":         {0.96, 0.96},
	"leak=stack_trace":      {0.96, 0.96},
	"leak=struct_dump":      {0.6, 0.74},
	"next":                  {0.93, 0.83},
	"outcome=committed":     {0.76, 0.37},
	"outcome=not_committed": {0.85, 0.64},
	"outcome=unknown":       {0.91, 0.78},
	"read":                  {0.96, 0.96},
	"retry=after_check":     {0.88, 0.65},
	"retry=bounded":         {0.89, 0.8},
	"retry=do_not_retry":    {0.82, 0.71},
	"retry=unbounded":       {0.74, 0.76},
	"retry_limit":           {0.89, 0.78},
	"unread":                {0.8, 0.9},
	"unsafe":                {0.92, 0.86},
	"user":                  {0.95, 0.78},
}
var testFloor = map[string][2]float64{ // {precision, recall}, measured on 3312 entries (1493 test), minus 0.03
	"args":                  {0.73, 0.33},
	"leak=exception_class":  {0.82, 0.91},
	"leak=file_path":        {0.53, 0.76},
	"leak=host_port":        {0.92, 0.9},
	"leak=internal_host":    {0.65, 0.96},
	"leak=ip":               {0.62, 0.96},
	"leak=secret":           {0.96, 0.79},
	"leak=sql":              {0.82, 0.96},
	"leak=sqlstate":         {0.96, 0.83},
	"leak=stack_trace":      {0.96, 0.96},
	"leak=struct_dump":      {0.67, 0.67},
	"next":                  {0.91, 0.79},
	"outcome=committed":     {0.44, 0.22},
	"outcome=not_committed": {0.76, 0.59},
	"outcome=unknown":       {0.9, 0.62},
	"read":                  {0.96, 0.96},
	"retry=after_check":     {0.85, 0.56},
	"retry=bounded":         {0.78, 0.68},
	"retry=do_not_retry":    {0.82, 0.64},
	"retry=unbounded":       {0.68, 0.61},
	"retry_limit":           {0.78, 0.68},
	"unread":                {0.49, 0.76},
	"unsafe":                {0.87, 0.55},
	"user":                  {0.95, 0.64},
}

// TestCorpus scores the reader on the labelled corpus, per signal, on the
// DEV and TEST splits, and fails when a figure of either drops below its
// floor.
// READER_CORPUS_DEV=1 also logs each DEV entry the reader got wrong.
func TestCorpus(t *testing.T) {
	entries := loadCorpus(t)
	splits := map[bool]score{false: {}, true: {}}
	n := map[bool]int{}
	for _, e := range entries {
		r, ctx := replyOf(e)
		got := Read(r, ctx)
		n[e.Test]++
		s := splits[e.Test]
		if !e.Test && os.Getenv("READER_CORPUS_DEV") != "" {
			probe := score{}
			scoreEntry(probe, e, got)
			var bad []string
			for k, c := range probe {
				if c.fp+c.fn > 0 {
					bad = append(bad, k)
				}
			}
			if len(bad) > 0 {
				sort.Strings(bad)
				t.Logf("DEV %s wrong on %v: got retry=%s/%d outcome=%s next=%v user=%v args=%v unsafe=%v read=%v leaks=%v",
					e.ID, bad, got.Retry.Kind, got.Retry.Limit, got.Outcome.State, got.Next.Tools, got.User.Set,
					got.Args, got.Unsafe.Set, got.Read, got.Leaks)
			}
		}
		scoreEntry(s, e, got)
	}
	var names []string
	for k := range splits[false] {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "corpus: %d entries (dev %d, test %d)\n", len(entries), n[false], n[true])
	fmt.Fprintf(&b, "%-24s %22s %22s\n", "signal", "dev P / R (tp fp fn)", "test P / R (tp fp fn)")
	for _, k := range names {
		d, te := splits[false][k], splits[true][k]
		if te == nil {
			te = &tally{}
		}
		fmt.Fprintf(&b, "%-24s %.2f / %.2f (%2d %2d %2d)   %.2f / %.2f (%2d %2d %2d)\n", k,
			d.precision(), d.recall(), d.tp, d.fp, d.fn, te.precision(), te.recall(), te.tp, te.fp, te.fn)
	}
	t.Log("\n" + b.String())
	if os.Getenv(archivesEnv) != "" {
		t.Logf("%s is set: floors not checked on a part of the corpus", archivesEnv)
		return
	}
	for _, fl := range []struct {
		name   string
		floors map[string][2]float64
		split  score
	}{{"DEV", devFloor, splits[false]}, {"TEST", testFloor, splits[true]}} {
		for k, f := range fl.floors {
			d := fl.split[k]
			if d == nil {
				d = &tally{} // no entry of the split holds the signal
			}
			if d.precision() < f[0] || d.recall() < f[1] {
				t.Errorf("signal %s: %s precision/recall %.2f/%.2f below the floor %.2f/%.2f", k, fl.name, d.precision(), d.recall(), f[0], f[1])
			}
		}
	}
	if len(devFloor) == 0 || len(testFloor) == 0 {
		t.Error("no floors pinned")
	}
}
