package rules

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for TTL tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func ptr[T any](v T) *T { return &v }

func spec(kind string) FaultSpec { return FaultSpec{Kind: kind} }

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name      string
		rule      Rule
		wantField string
		wantLine  int
		wantCol   int
		wantMsg   string
	}{
		{name: "unknown identifier", rule: Rule{Name: "r1", When: `methd == "POST"`, Fault: spec("x")}, wantLine: 1, wantCol: 0, wantMsg: "unknown name methd"},
		{name: "type error", rule: Rule{Name: "r2", When: `attempt == "one"`, Fault: spec("x")}, wantLine: 1, wantMsg: "mismatched types"},
		{name: "not bool", rule: Rule{Name: "r3", When: `attempt + 1`, Fault: spec("x")}, wantLine: 1, wantMsg: "expected bool"},
		{name: "syntax on line 2", rule: Rule{Name: "r4", When: "method == \"POST\" &&\n  path ==", Fault: spec("x")}, wantLine: 2, wantMsg: "unexpected token"},
		{name: "no name", rule: Rule{Fault: spec("x")}, wantField: "name"},
		{name: "no kind", rule: Rule{Name: "r5"}, wantField: "fault.kind"},
		{name: "probability", rule: Rule{Name: "r6", Fault: spec("x"), Probability: ptr(1.5)}, wantField: "probability"},
		{name: "limit", rule: Rule{Name: "r7", Fault: spec("x"), Limit: -1}, wantField: "limit"},
		{name: "ttl", rule: Rule{Name: "r8", Fault: spec("x"), TTL: -time.Second}, wantField: "ttl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := NewTable(TableOptions{})
			err := tab.Check(tt.rule)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.wantField != "" {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field != tt.wantField {
					t.Fatalf("err = %v, want field %q", err, tt.wantField)
				}
				return
			}
			var ee *ExprError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %T %v, want *ExprError", err, err)
			}
			if ee.Rule != tt.rule.Name || ee.Line != tt.wantLine || (tt.wantCol != 0 && ee.Column != tt.wantCol) {
				t.Errorf("got rule %q line %d col %d, want %q line %d col %d", ee.Rule, ee.Line, ee.Column, tt.rule.Name, tt.wantLine, tt.wantCol)
			}
			if !strings.Contains(ee.Msg, tt.wantMsg) || !strings.Contains(err.Error(), tt.rule.Name) {
				t.Errorf("message %q does not contain %q and the rule name", err.Error(), tt.wantMsg)
			}
			if _, err := tab.Put(tt.rule); err == nil || tab.Load().Len() != 0 {
				t.Error("a rule that does not compile was added")
			}
		})
	}
}

func TestFirstMatchWins(t *testing.T) {
	tab := NewTable(TableOptions{})
	must(t, tab.Replace([]Rule{
		{Name: "off", When: "true", Fault: spec("a"), Disabled: true},
		{Name: "other upstream", Upstream: "db", Fault: spec("b")},
		{Name: "post", When: `method == "POST" && path == "/shipments" && attempt == 1`, Fault: spec("c")},
		{Name: "any", Fault: spec("d")},
	}))
	var ev Evaluator
	now := tab.Now()
	tests := []struct {
		env  Env
		want string
	}{
		{Env{Upstream: "api", Method: "POST", Path: "/shipments", Attempt: 1}, "post"},
		{Env{Upstream: "api", Method: "POST", Path: "/shipments", Attempt: 2}, "any"},
		{Env{Upstream: "db"}, "other upstream"},
	}
	for _, tt := range tests {
		m, ok := ev.Match(tab.Load(), tt.env, now, nil)
		if !ok || m.Rule.Name != tt.want {
			t.Errorf("Match(%+v) = %q %v, want %q", tt.env, m.Rule.Name, ok, tt.want)
		}
	}
}

// A rule naming a forward proxy applies to the traffic of every
// destination reached through it (Env.Via), and to no other.
func TestViaScope(t *testing.T) {
	tab := NewTable(TableOptions{})
	must(t, tab.Replace([]Rule{
		{Name: "ledger only", Upstream: "ledger", When: `host == "ledger.example.test"`, Fault: spec("a")},
		{Name: "through fwd", Upstream: "fwd", Fault: spec("b")},
	}))
	var ev Evaluator
	s, now := tab.Load(), tab.Now()
	for _, tt := range []struct {
		env  Env
		want string
	}{
		{Env{Upstream: "ledger", Host: "ledger.example.test", Via: "fwd"}, "ledger only"},
		{Env{Upstream: "api.example.test", Host: "api.example.test", Via: "fwd"}, "through fwd"},
		{Env{Upstream: "api.example.test", Via: "other"}, ""},
		{Env{Upstream: "carrier"}, ""},
	} {
		m, ok := ev.Match(s, tt.env, now, nil)
		if m.Rule.Name != tt.want || ok != (tt.want != "") {
			t.Errorf("Match(%+v) = %q; want %q", tt.env, m.Rule.Name, tt.want)
		}
		if got := s.ActiveVia(tt.env.Upstream, tt.env.Via, now); got != (tt.want != "") {
			t.Errorf("ActiveVia(%q, %q) = %v", tt.env.Upstream, tt.env.Via, got)
		}
	}
	if s.Active("api.example.test", now) {
		t.Error("Active without via counts a rule naming the forward proxy")
	}
}

func TestRuntimeErrorDoesNotMatch(t *testing.T) {
	tab := NewTable(TableOptions{})
	must(t, tab.Replace([]Rule{{Name: "hdr", When: `header["X-Mode"] == "slow"`, Fault: spec("a")}}))
	var ev Evaluator
	if _, ok := ev.Match(tab.Load(), Env{}, tab.Now(), nil); ok {
		t.Error("nil header map matched")
	}
	if _, ok := ev.Match(tab.Load(), Env{Header: map[string]string{"X-Mode": "slow"}}, tab.Now(), nil); !ok {
		t.Error("header did not match")
	}
}

func TestLimit(t *testing.T) {
	tab := NewTable(TableOptions{})
	must(t, tab.Replace([]Rule{{Name: "twice", Fault: spec("a"), Limit: 2}}))
	var ev Evaluator
	hits := 0
	var first *State
	for i := 1; i <= 5; i++ {
		if m, ok := ev.Match(tab.Load(), Env{Conn: i}, tab.Now(), nil); ok {
			hits++
			first = m.State
		}
	}
	if hits != 2 {
		t.Fatalf("hits = %d, want 2", hits)
	}
	// A unit already counted is re-evaluated without being counted again.
	if _, ok := ev.Match(tab.Load(), Env{Conn: 1}, tab.Now(), first); !ok {
		t.Error("held rule no longer matches its own unit")
	}
	if got := first.Hits(); got != 2 {
		t.Errorf("Hits = %d, want 2", got)
	}
}

func TestLimitConcurrent(t *testing.T) {
	tab := NewTable(TableOptions{})
	must(t, tab.Replace([]Rule{{Name: "ten", Fault: spec("a"), Limit: 10}}))
	var wg sync.WaitGroup
	var mu sync.Mutex
	hits := 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ev Evaluator
			for i := 0; i < 100; i++ {
				if _, ok := ev.Match(tab.Load(), Env{Conn: i}, tab.Now(), nil); ok {
					mu.Lock()
					hits++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if hits != 10 {
		t.Fatalf("hits = %d, want exactly 10", hits)
	}
}

func TestTTL(t *testing.T) {
	clock := newClock()
	tab := NewTable(TableOptions{Clock: clock, DefaultTTL: time.Minute, MaxTTL: time.Hour})
	must(t, tab.Replace([]Rule{
		{Name: "default", Fault: spec("a"), Upstream: "u1"},
		{Name: "short", Fault: spec("a"), Upstream: "u2", TTL: 10 * time.Second},
		{Name: "longest", Fault: spec("a"), Upstream: "u3", TTL: time.Hour},
	}))
	var ev Evaluator
	match := func(up string) bool {
		_, ok := ev.Match(tab.Load(), Env{Upstream: up}, clock.Now(), nil)
		return ok
	}
	if !match("u1") || !match("u2") || !match("u3") {
		t.Fatal("fresh rules do not match")
	}
	if got, want := tab.Load().NextExpiry("u2", clock.Now()), clock.Now().Add(10*time.Second); !got.Equal(want) {
		t.Errorf("NextExpiry = %v, want %v", got, want)
	}
	clock.Add(10 * time.Second)
	if match("u2") || tab.Load().Active("u2", clock.Now()) {
		t.Error("expired rule still matches")
	}
	if !match("u1") {
		t.Error("default-TTL rule expired early")
	}
	clock.Add(50 * time.Second)
	if match("u1") {
		t.Error("default TTL not applied")
	}
	before := tab.Load()
	if n := tab.Sweep(); n != 2 {
		t.Errorf("Sweep removed %d, want 2", n)
	}
	select {
	case <-before.Changed():
	default:
		t.Error("Sweep did not signal the change")
	}
	clock.Add(time.Hour)
	if match("u3") {
		t.Error("a TTL of MaxTTL did not expire")
	}
}

func TestNeverExpire(t *testing.T) {
	clock := newClock()
	tab := NewTable(TableOptions{Clock: clock, DefaultTTL: -1})
	must(t, tab.Replace([]Rule{{Name: "forever", Fault: spec("a")}}))
	clock.Add(1000 * time.Hour)
	if !tab.Load().Active("x", clock.Now()) {
		t.Error("rule with negative default TTL expired")
	}
}

func TestUnchangedRuleKeepsState(t *testing.T) {
	clock := newClock()
	tab := NewTable(TableOptions{Clock: clock})
	r := Rule{Name: "a", Fault: FaultSpec{Kind: "k", Params: map[string]any{"n": 1}}, Limit: 3}
	must(t, tab.Replace([]Rule{r}))
	var ev Evaluator
	ev.Match(tab.Load(), Env{}, clock.Now(), nil)
	_, st := tab.Load().Rule(0)
	clock.Add(time.Minute)
	if _, err := tab.Put(Rule{Name: "b", Fault: spec("k")}); err != nil {
		t.Fatal(err)
	}
	if _, st2 := tab.Load().Rule(0); st2 != st || st2.Hits() != 1 {
		t.Error("an unrelated change reset the rule's state")
	}
	r.Fault.Params = map[string]any{"n": 2}
	if _, err := tab.Put(r); err != nil {
		t.Fatal(err)
	}
	if _, st3 := tab.Load().Rule(0); st3 == st || st3.Hits() != 0 {
		t.Error("a changed rule kept its old state")
	}
}

func TestTableMutations(t *testing.T) {
	tab := NewTable(TableOptions{})
	created, err := tab.Put(Rule{Name: "a", Fault: spec("k")})
	if err != nil || !created {
		t.Fatalf("Put = %v %v", created, err)
	}
	created, err = tab.Put(Rule{Name: "a", Fault: spec("k2")})
	if err != nil || created {
		t.Fatalf("replace Put = %v %v", created, err)
	}
	if got := tab.Rules()[0].Fault.Kind; got != "k2" {
		t.Errorf("kind = %q", got)
	}
	if err := tab.Remove("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Remove(nope) = %v", err)
	}
	err = tab.Replace([]Rule{{Name: "x", Fault: spec("k")}, {Name: "x", Fault: spec("k")}})
	if !errors.Is(err, ErrDuplicate) {
		t.Errorf("duplicate = %v", err)
	}
	if tab.Load().Len() != 1 {
		t.Error("failed Replace changed the table")
	}
	v := tab.Load().Version()
	if n := tab.Clear(); n != 1 || tab.Load().Len() != 0 || tab.Load().Version() != v+1 {
		t.Errorf("Clear = %d, len %d", n, tab.Load().Len())
	}
}

func TestParseFaultHook(t *testing.T) {
	parse := func(s FaultSpec) (any, error) {
		if s.Kind != "ok" {
			return nil, &FieldError{Field: "fault.kind", Msg: "is not known"}
		}
		return "parsed", nil
	}
	tab := NewTable(TableOptions{ParseFault: parse})
	err := tab.Check(Rule{Name: "bad", Fault: spec("nope")})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Rule != "bad" || fe.Field != "fault.kind" {
		t.Fatalf("err = %v", err)
	}
	must(t, tab.Replace([]Rule{{Name: "good", Fault: spec("ok")}}))
	var ev Evaluator
	if m, ok := ev.Match(tab.Load(), Env{}, tab.Now(), nil); !ok || m.Fault != "parsed" {
		t.Errorf("Match fault = %v", m.Fault)
	}
	ev.Accept = func(f any) bool { return f != "parsed" }
	if _, ok := ev.Match(tab.Load(), Env{}, tab.Now(), nil); ok {
		t.Error("Accept did not filter")
	}
	if _, st := tab.Load().Rule(0); st.Hits() != 1 {
		t.Errorf("a filtered rule was counted: hits %d", st.Hits())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
