package inject

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpchaos/mcpchaos/rules"
)

func TestKindsRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds() {
		if seen[k.Name] {
			t.Errorf("kind %q registered twice", k.Name)
		}
		seen[k.Name] = true
		f := k.New()
		if f.Kind() != k.Name {
			t.Errorf("kind %q: New().Kind() = %q", k.Name, f.Kind())
		}
		if _, ok := f.(StreamFault); ok != k.TCP {
			t.Errorf("kind %q: TCP=%v but StreamFault=%v", k.Name, k.TCP, ok)
		}
		if _, ok := f.(ExchangeFault); ok != k.HTTP {
			t.Errorf("kind %q: HTTP=%v but ExchangeFault=%v", k.Name, k.HTTP, ok)
		}
		if k.Summary == "" {
			t.Errorf("kind %q has no summary", k.Name)
		}
		if got, ok := Kind(k.Name); !ok || got.Name != k.Name {
			t.Errorf("Kind(%q) = %v, %v", k.Name, got.Name, ok)
		}
	}
	if _, ok := Kind("meteor"); ok {
		t.Error("Kind(meteor) found")
	}
	if k, _ := Kind("http_error"); k.TCP {
		t.Error("http_error claims to apply to TCP")
	}
}

func TestParseFaultDefaults(t *testing.T) {
	tests := []struct {
		spec rules.FaultSpec
		want Fault
	}{
		{fault("latency", "delay", "250ms"), &Latency{Delay: Duration(250 * time.Millisecond), Direction: Response}},
		{fault("latency", "delay", "1s", "jitter", "100ms", "direction", "both"),
			&Latency{Delay: Duration(time.Second), Jitter: Duration(100 * time.Millisecond), Direction: Both}},
		{fault("timeout"), &Timeout{Direction: Both}},
		{fault("timeout", "close_after", "2s", "direction", "request"), &Timeout{CloseAfter: Duration(2 * time.Second), Direction: Request}},
		{fault("unreachable"), &Unreachable{Mode: "refuse"}},
		{fault("unreachable", "mode", "blackhole"), &Unreachable{Mode: "blackhole"}},
		{fault("partial_write", "bytes", 10), &PartialWrite{Bytes: 10, Direction: Response, Then: "reset"}},
		{fault("response_lost"), &ResponseLost{Mode: "hang"}},
		{fault("http_error"), &HTTPError{Status: 503}},
		{fault("reset"), &Reset{Direction: Response}},
		{fault("bandwidth", "rate", 1000), &Bandwidth{Rate: 1000, Direction: Response}},
	}
	for _, tt := range tests {
		got, err := ParseFault(tt.spec)
		if err != nil {
			t.Errorf("%v: %v", tt.spec, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.spec, diff)
		}
	}
}

// TestParseFaultErrors: every error is a FieldError naming the parameter
// at fault, so the API and the scenario loader can point at it.
func TestParseFaultErrors(t *testing.T) {
	tests := []struct {
		name  string
		spec  rules.FaultSpec
		field string
		msg   string // part of the message
	}{
		{"unknown kind", fault("meteor"), "fault.kind", "latency, timeout"},
		{"unknown param", fault("latency", "delay", "1s", "dleay", "2s"), "fault.dleay", "not a parameter of latency"},
		{"bad duration", fault("latency", "delay", "soon"), "fault.delay", "not a duration"},
		{"duration as number", fault("timeout", "close_after", 5), "fault.close_after", "not a duration"},
		{"negative duration", fault("latency", "delay", "-1s"), "fault.delay", "not a duration"},
		{"bad direction", fault("latency", "delay", "1s", "direction", "up"), "fault.direction", "request, response or both"},
		{"both where not allowed", fault("reset", "direction", "both"), "fault.direction", "request or response"},
		{"missing delay", fault("latency"), "fault.delay", "required"},
		{"wrong type", fault("partial_write", "bytes", "ten"), "fault.bytes", "must be a int64"},
		{"negative bytes", fault("reset", "bytes", -1), "fault.bytes", "negative"},
		{"bad mode", fault("unreachable", "mode", "maybe"), "fault.mode", "refuse or blackhole"},
		{"bad then", fault("partial_write", "then", "explode"), "fault.then", "reset or close"},
		{"bad status", fault("http_error", "status", 42), "fault.status", "200-599"},
		{"informational status", fault("http_error", "status", 101), "fault.status", "200-599"},
		{"rate over the maximum", fault("bandwidth", "rate", int64(1)<<41), "fault.rate", "1-1099511627776"},
		{"delay over the cap", fault("latency", "delay", "876000h"), "fault.delay", "876000h0m0s, over the maximum of 1h0m0s"},
		{"jitter over the cap", fault("latency", "delay", "1s", "jitter", "2h"), "fault.jitter", "over the maximum of 1h0m0s"},
		{"close_after over the cap", fault("timeout", "close_after", "61m"), "fault.close_after", "over the maximum of 1h0m0s"},
		{"no rate", fault("bandwidth"), "fault.rate", "required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFault(tt.spec)
			var fe *rules.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *rules.FieldError", err)
			}
			if fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msg) {
				t.Fatalf("got field %q msg %q, want field %q and a message with %q", fe.Field, fe.Msg, tt.field, tt.msg)
			}
		})
	}
}

// TestParseFaultInRule: through the table, the error also names the rule.
func TestParseFaultInRule(t *testing.T) {
	r := New(Options{})
	defer r.Close()
	_, err := r.PutRule(rules.Rule{Name: "slow", Fault: fault("latency", "delay", "soon")})
	var fe *rules.FieldError
	if !errors.As(err, &fe) || fe.Rule != "slow" || fe.Field != "fault.delay" {
		t.Fatalf("got %#v", err)
	}
}

func TestDurationJSON(t *testing.T) {
	d := Duration(1500 * time.Millisecond)
	b, err := json.Marshal(d)
	if err != nil || string(b) != `"1.5s"` {
		t.Fatalf("marshal: %s, %v", b, err)
	}
	var back Duration
	if err := json.Unmarshal(b, &back); err != nil || back != d {
		t.Fatalf("unmarshal: %v, %v", back, err)
	}
}

// TestLatencyJitterDeterministic: jitter comes from the seeded source and
// stays within bounds, even for absurd parameters.
func TestLatencyJitterDeterministic(t *testing.T) {
	f := &Latency{Delay: Duration(100 * time.Millisecond), Jitter: Duration(50 * time.Millisecond)}
	a, b := newPCG(1), newPCG(1)
	for range 100 {
		da, db := f.wait(a), f.wait(b)
		if da != db {
			t.Fatalf("same seed, different waits: %v, %v", da, db)
		}
		if da < 50*time.Millisecond || da > 150*time.Millisecond {
			t.Fatalf("wait %v out of 100ms±50ms", da)
		}
	}
	huge := &Latency{Delay: Duration(time.Duration(1<<63 - 1)), Jitter: Duration(time.Duration(1<<63 - 1))}
	if d := huge.wait(a); d < 0 {
		t.Fatalf("huge jitter gave %v", d)
	}
}

func newPCG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func TestParamNames(t *testing.T) {
	if diff := cmp.Diff([]string{"delay", "jitter", "direction"}, paramNamesOf(&Latency{})); diff != "" {
		t.Errorf("latency (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"status", "body", "headers", "after_upstream"}, paramNamesOf(&HTTPError{})); diff != "" {
		t.Errorf("http_error (-want +got):\n%s", diff)
	}
}

func paramNamesOf(f Fault) []string {
	var out []string
	for _, p := range Params(f) {
		out = append(out, p.Name)
	}
	return out
}

func TestParamsDefaults(t *testing.T) {
	byName := map[string]Param{}
	for _, p := range Params(&Timeout{Direction: Both, CloseAfter: Duration(2e9)}) {
		byName[p.Name] = p
	}
	if p := byName["close_after"]; p.Type != "duration" || p.Default != "2s" {
		t.Errorf("close_after = %+v", p)
	}
	if p := byName["direction"]; p.Default != "both" || len(p.Choices) != 3 {
		t.Errorf("direction = %+v", p)
	}
}
