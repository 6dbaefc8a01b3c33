package reader

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/txtar"
)

// labels are an entry's YAML keys (the corpus format's reading labels;
// the judge's keys are read by the judge's own test).
type labels struct {
	Lang       string         `yaml:"lang"`
	Channel    string         `yaml:"channel"`
	Tool       string         `yaml:"tool"`
	Tools      []string       `yaml:"tools"`
	Params     []string       `yaml:"params"`
	Fault      string         `yaml:"fault"`
	Internal   []string       `yaml:"internal"`
	Read       string         `yaml:"read"`
	Retry      string         `yaml:"retry"`
	RetryLimit int            `yaml:"retry_limit"`
	Outcome    string         `yaml:"outcome"`
	Next       []string       `yaml:"next"`
	User       bool           `yaml:"user"`
	Args       map[string]any `yaml:"args"`
	Unsafe     bool           `yaml:"unsafe"`
	Leaks      []string       `yaml:"leaks"`
}

// entry is one labelled reply of the corpus.
type entry struct {
	id     string
	lab    labels
	text   string
	strct  []byte
	isTest bool
}

// inTest is the split rule: an entry is in TEST when the FNV-1a hash of
// its id is odd. Tuning looks at DEV only.
func inTest(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%2 == 1
}

// loadCorpus reads every testdata/corpus/*.txtar.
func loadCorpus(t *testing.T) []entry {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no corpus: testdata/corpus/*.txtar holds no archive")
	}
	var out []entry
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		byID := map[string]*entry{}
		var order []string
		for _, f := range a.Files {
			ext := filepath.Ext(f.Name)
			id := strings.TrimSuffix(f.Name, ext)
			e := byID[id]
			if e == nil {
				e = &entry{id: id, isTest: inTest(id)}
				byID[id] = e
				order = append(order, id)
			}
			switch ext {
			case ".yaml":
				if err := yaml.Unmarshal(f.Data, &e.lab); err != nil {
					t.Fatalf("%s: %s: %v", p, f.Name, err)
				}
			case ".txt":
				// txtar ends every file with a newline; a reply's own
				// text does not carry it.
				e.text = strings.TrimSuffix(string(f.Data), "\n")
			case ".json":
				e.strct = f.Data
			default:
				t.Fatalf("%s: %s: unknown file kind", p, f.Name)
			}
		}
		for _, id := range order {
			if byID[id].lab.Channel == "" {
				t.Fatalf("%s: %s has no labels", p, id)
			}
			out = append(out, *byID[id])
		}
	}
	return out
}

// tally counts one signal's outcomes.
type tally struct{ tp, fp, fn int }

func (c tally) precision() float64 { return ratio(c.tp, c.tp+c.fp) }
func (c tally) recall() float64    { return ratio(c.tp, c.tp+c.fn) }

// ratio is 1 when nothing was expected or claimed: no evidence of error.
func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// score is a split's tallies by signal name.
type score map[string]*tally

func (s score) add(sig string, want, got bool) {
	c := s[sig]
	if c == nil {
		c = &tally{}
		s[sig] = c
	}
	switch {
	case want && got:
		c.tp++
	case got:
		c.fp++
	case want:
		c.fn++
	}
}

// sets scores two sets of values as one signal.
func (s score) sets(sig string, want, got []string) {
	w := map[string]bool{}
	for _, x := range want {
		w[x] = true
	}
	g := map[string]bool{}
	for _, x := range got {
		g[x] = true
	}
	if s[sig] == nil {
		s[sig] = &tally{}
	}
	for x := range w {
		s.add(sig, true, g[x])
	}
	for x := range g {
		if !w[x] {
			s.add(sig, false, true)
		}
	}
}

// replyOf builds the reply and context an entry describes.
func replyOf(e entry) (Reply, Context) {
	ctx := Context{Current: Tool{Name: e.lab.Tool, Params: e.lab.Params}}
	for _, n := range e.lab.Tools {
		t := Tool{Name: n}
		if n == e.lab.Tool {
			t.Params = e.lab.Params
		}
		ctx.Tools = append(ctx.Tools, t)
	}
	return Reply{Channel: Channel(e.lab.Channel), Text: e.text, Structured: e.strct}, ctx
}

// scoreEntry compares what the reader read with an entry's labels. On an
// entry labelled unread, the reader must report no text signal (the
// labels' other fields give the human meaning, which no reader claims
// to read). Leak candidates are scored where the judge would use them:
// on error replies and on successes a fault hit.
func scoreEntry(s score, e entry, got Signals) {
	l := e.lab
	read := l.Read != "unread"
	s.add("read", read, got.Read)
	s.add("unread", !read, !got.Read)
	if !read {
		l.Retry, l.RetryLimit, l.Outcome, l.Next, l.User, l.Args, l.Unsafe = "none", 0, "none", nil, false, nil, false
	}
	for _, k := range []RetryKind{DoNotRetry, RetryBounded, RetryUnbounded, RetryAfterCheck} {
		s.add("retry="+string(k), l.Retry == string(k), got.Retry.Kind == k)
	}
	s.add("retry_limit", l.Retry == "bounded", got.Retry.Kind == RetryBounded &&
		(l.Retry != "bounded" || got.Retry.Limit == l.RetryLimit))
	for _, o := range []OutcomeState{OutcomeUnknown, OutcomeCommitted, OutcomeNotCommitted} {
		s.add("outcome="+string(o), l.Outcome == string(o), got.Outcome.State == o)
	}
	s.sets("next", l.Next, got.Next.Tools)
	s.add("user", l.User, got.User.Set)
	var wantArgs, gotArgs []string
	for k, v := range l.Args {
		if v == "" {
			v = nil
		}
		wantArgs = append(wantArgs, argKey(k, v))
	}
	for _, a := range got.Args {
		gotArgs = append(gotArgs, argKey(a.Name, a.Value))
	}
	s.sets("args", wantArgs, gotArgs)
	s.add("unsafe", l.Unsafe, got.Unsafe.Set)
	if l.Channel != "success" || l.Fault != "none" {
		var kinds []string
		for _, lk := range got.Leaks {
			if addressKind(lk.Kind) && !anchored(lk.Text, l.Internal) {
				continue // an address the run does not know as internal
			}
			kinds = append(kinds, lk.Kind)
		}
		for _, k := range leakKinds {
			s.add("leak="+k, contains(l.Leaks, k), contains(kinds, k))
		}
	}
}

var leakKinds = []string{LeakStackTrace, LeakInternalHost, LeakIP, LeakHostPort, LeakSQL, LeakSQLState,
	LeakFilePath, LeakStructDump, LeakExceptionClass, LeakSecret}

// addressKind: address candidates count only when the run knows the
// address as internal (leaks anchored in facts); the judge applies the
// same rule.
func addressKind(k string) bool { return k == LeakIP || k == LeakHostPort || k == LeakInternalHost }

// anchored reports whether an address candidate names one of the run's
// internal addresses (or the host of one).
func anchored(text string, internal []string) bool {
	for _, in := range internal {
		host := in
		if i := strings.LastIndexByte(in, ':'); i > 0 && !strings.Contains(in[i+1:], ".") {
			host = in[:i]
		}
		if strings.Contains(text, in) || strings.Contains(in, text) || strings.Contains(text, host) {
			return true
		}
	}
	return false
}

func argKey(name string, v any) string {
	if v == nil {
		return name
	}
	return fmt.Sprintf("%s=%v", name, v)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// devFloor pins each signal's DEV precision and recall as last measured,
// minus a small margin: a change to the reader may not make any of them
// worse. TEST figures are printed, never pinned (tuning never sees them).
var devFloor = map[string][2]float64{}

// TestCorpus scores the reader on the labelled corpus, per signal, on the
// DEV and TEST splits, and fails when a DEV figure drops below its floor.
// READER_CORPUS_DEV=1 also logs each DEV entry the reader got wrong.
func TestCorpus(t *testing.T) {
	entries := loadCorpus(t)
	splits := map[bool]score{false: {}, true: {}}
	n := map[bool]int{}
	for _, e := range entries {
		r, ctx := replyOf(e)
		got := Read(r, ctx)
		n[e.isTest]++
		s := splits[e.isTest]
		if !e.isTest && os.Getenv("READER_CORPUS_DEV") != "" {
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
					e.id, bad, got.Retry.Kind, got.Retry.Limit, got.Outcome.State, got.Next.Tools, got.User.Set,
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
	for k, f := range devFloor {
		d := splits[false][k]
		if d == nil {
			t.Errorf("signal %s: no DEV figure", k)
			continue
		}
		if d.precision() < f[0] || d.recall() < f[1] {
			t.Errorf("signal %s: DEV precision/recall %.2f/%.2f below the floor %.2f/%.2f", k, d.precision(), d.recall(), f[0], f[1])
		}
	}
	if len(devFloor) == 0 {
		t.Error("no DEV floors pinned")
	}
}
