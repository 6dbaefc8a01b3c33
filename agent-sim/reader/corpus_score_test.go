package reader

import (
	"fmt"
	"strings"
)

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
	ctx := Context{Current: Tool{Name: e.Labels.Tool, Params: e.Labels.Params}}
	for _, n := range e.Labels.Tools {
		t := Tool{Name: n}
		if n == e.Labels.Tool {
			t.Params = e.Labels.Params
		}
		ctx.Tools = append(ctx.Tools, t)
	}
	return Reply{Channel: Channel(e.Labels.Channel), Text: e.Text, Structured: e.Structured}, ctx
}

// scoreEntry compares what the reader read with an entry's labels. On an
// entry labelled unread, the reader must report no text signal (the
// labels' other fields give the human meaning, which no reader claims
// to read). Leak candidates are scored where the judge would use them:
// on error replies and on successes a fault hit.
func scoreEntry(s score, e entry, got Signals) {
	l := e.Labels
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
