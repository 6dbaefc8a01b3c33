package rules

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestMaxTTL: a TTL over the table's maximum is refused with the cap in
// the message, where it used to be cut silently; defaults are cut to it.
func TestMaxTTL(t *testing.T) {
	tests := []struct {
		name       string
		opts       TableOptions
		ttl        time.Duration
		wantErr    bool
		wantExpiry time.Duration // 0: never
	}{
		{name: "over the maximum", opts: TableOptions{MaxTTL: time.Hour}, ttl: time.Hour + time.Second, wantErr: true},
		{name: "at the maximum", opts: TableOptions{MaxTTL: time.Hour}, ttl: time.Hour, wantExpiry: time.Hour},
		{name: "default over the maximum is cut", opts: TableOptions{MaxTTL: time.Hour, DefaultTTL: 2 * time.Hour}, wantExpiry: time.Hour},
		{name: "never by default becomes the maximum", opts: TableOptions{MaxTTL: time.Hour, DefaultTTL: -1}, wantExpiry: time.Hour},
		{name: "no maximum", opts: TableOptions{}, ttl: 1000 * time.Hour, wantExpiry: 1000 * time.Hour},
		{name: "never without a maximum", opts: TableOptions{DefaultTTL: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newClock()
			tt.opts.Clock = clock
			tab := NewTable(tt.opts)
			r := Rule{Name: "r", Fault: spec("k"), TTL: tt.ttl}
			_, err := tab.Put(r)
			if tt.wantErr {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field != "ttl" || !errors.Is(err, ErrTTLOverMax) ||
					!strings.Contains(err.Error(), "ttl is over the maximum of 1h0m0s (serve --max-ttl)") {
					t.Fatalf("err = %v, want a ttl error naming the maximum", err)
				}
				if tab.Load().Len() != 0 || tab.Check(r) == nil {
					t.Error("the rule was added, or Check accepts it")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_, st := tab.Load().Rule(0)
			want := time.Time{}
			if tt.wantExpiry != 0 {
				want = clock.Now().Add(tt.wantExpiry)
			}
			if !st.Expires().Equal(want) {
				t.Errorf("expires %v, want %v", st.Expires(), want)
			}
		})
	}
}

// TestRuleIdentity: enabling, disabling and changing the ttl do not make a
// new rule (the hit count and the TTL clock stay), and re-submitting a
// rule does not extend it.
func TestRuleIdentity(t *testing.T) {
	base := Rule{Name: "r", Fault: spec("k"), Limit: 5, TTL: 10 * time.Minute}
	tests := []struct {
		name     string
		change   func(r *Rule)
		same     bool          // the state survives
		expireIn time.Duration // from when the rule was first added
	}{
		{name: "resubmitted unchanged", change: func(*Rule) {}, same: true, expireIn: 10 * time.Minute},
		{name: "disabled", change: func(r *Rule) { r.Disabled = true }, same: true, expireIn: 10 * time.Minute},
		{name: "longer ttl", change: func(r *Rule) { r.TTL = 30 * time.Minute }, same: true, expireIn: 30 * time.Minute},
		{name: "shorter ttl", change: func(r *Rule) { r.TTL = time.Minute }, same: true, expireIn: time.Minute},
		{name: "new condition", change: func(r *Rule) { r.When = "conn > 1" }, expireIn: 5*time.Minute + 10*time.Minute},
		{name: "new limit", change: func(r *Rule) { r.Limit = 6 }, expireIn: 5*time.Minute + 10*time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newClock()
			added := clock.Now()
			tab := NewTable(TableOptions{Clock: clock})
			must(t, tab.Replace([]Rule{base}))
			var ev Evaluator
			ev.Match(tab.Load(), Env{}, clock.Now(), nil)
			ev.Match(tab.Load(), Env{}, clock.Now(), nil)
			_, st := tab.Load().Rule(0)
			clock.Add(5 * time.Minute)
			r := base
			tt.change(&r)
			if _, err := tab.Put(r); err != nil {
				t.Fatal(err)
			}
			_, st2 := tab.Load().Rule(0)
			if same := st2 == st; same != tt.same {
				t.Fatalf("state kept: %v, want %v", same, tt.same)
			}
			if wantHits := map[bool]int64{true: 2, false: 0}[tt.same]; st2.Hits() != wantHits {
				t.Errorf("hits %d, want %d", st2.Hits(), wantHits)
			}
			if want := added.Add(tt.expireIn); !st2.Expires().Equal(want) {
				t.Errorf("expires %v, want %v", st2.Expires(), want)
			}
		})
	}
}

// TestFailedSwapMovesNoExpiry: a Replace that fails on a later rule leaves
// the earlier rules' expiry as it was.
func TestFailedSwapMovesNoExpiry(t *testing.T) {
	clock := newClock()
	tab := NewTable(TableOptions{Clock: clock})
	r := Rule{Name: "r", Fault: spec("k"), TTL: time.Minute}
	must(t, tab.Replace([]Rule{r}))
	_, st := tab.Load().Rule(0)
	before := st.Expires()
	r.TTL = time.Hour
	if err := tab.Replace([]Rule{r, {Name: "bad", When: "(", Fault: spec("k")}}); err == nil {
		t.Fatal("a bad rule was accepted")
	}
	if !st.Expires().Equal(before) {
		t.Errorf("expiry moved to %v by a failed swap", st.Expires())
	}
}

func TestExtend(t *testing.T) {
	clock := newClock()
	tab := NewTable(TableOptions{Clock: clock, MaxTTL: time.Hour})
	must(t, tab.Replace([]Rule{{Name: "r", Fault: spec("k"), TTL: time.Minute}, {Name: "other", Fault: spec("k")}}))
	var ev Evaluator
	ev.Match(tab.Load(), Env{}, clock.Now(), nil)
	clock.Add(2 * time.Minute) // r has expired, not yet swept
	before := tab.Load()
	exp, err := tab.Extend("r", 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if want := clock.Now().Add(10 * time.Minute); !exp.Equal(want) {
		t.Errorf("Extend returned %v, want %v", exp, want)
	}
	_, st := tab.Load().Rule(0)
	if !st.Expires().Equal(exp) || st.Hits() != 1 || !tab.Load().Active("u", clock.Now()) {
		t.Errorf("after Extend: expires %v, hits %d", st.Expires(), st.Hits())
	}
	select {
	case <-before.Changed():
	default:
		t.Error("Extend did not signal a change")
	}
	if tab.Load().Version() != before.Version()+1 {
		t.Errorf("version %d, want %d", tab.Load().Version(), before.Version()+1)
	}
	for _, tc := range []struct {
		name string
		ttl  time.Duration
		is   error
	}{
		{"r", 0, nil}, {"r", -time.Second, nil}, {"r", time.Hour + 1, ErrTTLOverMax}, {"nope", time.Minute, ErrNotFound},
	} {
		_, err := tab.Extend(tc.name, tc.ttl)
		var fe *FieldError
		if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || (tc.is == nil && (!errors.As(err, &fe) || fe.Field != "ttl")) {
			t.Errorf("Extend(%q, %v) = %v", tc.name, tc.ttl, err)
		}
	}
	if _, st := tab.Load().Rule(0); !st.Expires().Equal(exp) {
		t.Error("a refused Extend changed the expiry")
	}
}

func TestResetCounters(t *testing.T) {
	clock := newClock()
	tab := NewTable(TableOptions{Clock: clock})
	must(t, tab.Replace([]Rule{{Name: "once", Fault: spec("k"), Limit: 1}}))
	var ev Evaluator
	if _, ok := ev.Match(tab.Load(), Env{}, clock.Now(), nil); !ok {
		t.Fatal("no first match")
	}
	if tab.Load().Active("u", clock.Now()) {
		t.Fatal("an exhausted rule is active")
	}
	_, st := tab.Load().Rule(0)
	exp, before := st.Expires(), tab.Load()
	must(t, tab.ResetCounters("once"))
	select {
	case <-before.Changed():
	default:
		t.Error("ResetCounters did not signal a change")
	}
	if _, st2 := tab.Load().Rule(0); st2 != st || st2.Hits() != 0 || !st2.Expires().Equal(exp) {
		t.Errorf("after reset: hits %d, expires %v (was %v)", st2.Hits(), st2.Expires(), exp)
	}
	if _, ok := ev.Match(tab.Load(), Env{}, clock.Now(), nil); !ok {
		t.Error("the reset rule does not match again")
	}
	if err := tab.ResetCounters("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ResetCounters(nope) = %v", err)
	}
}
