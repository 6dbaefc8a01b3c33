package inject

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// TestKindsSpec: every kind's specification is complete and consistent
// with itself: a behavior for each protocol it applies to, directions its
// direction parameter accepts, examples that parse, an outcome for each
// protocol, bounds that hold the defaults.
func TestKindsSpec(t *testing.T) {
	for _, k := range Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			var dirs []string
			for _, p := range Params(k.New()) {
				if p.Doc == "" {
					t.Errorf("parameter %s has no doc tag", p.Name)
				}
				if p.Name == "direction" {
					dirs = p.Choices
				}
			}
			for _, proto := range k.Protocols() {
				covered := false
				for _, b := range k.Behavior {
					if b.Protocol == "" || b.Protocol == proto {
						covered = true
					}
				}
				if !covered {
					t.Errorf("no behavior described for %s", proto)
				}
			}
			for _, b := range k.Behavior {
				if b.Protocol != "" && !slices.Contains(k.Protocols(), b.Protocol) {
					t.Errorf("behavior for %s, which the kind does not apply to", b.Protocol)
				}
				if b.Direction != "" && !slices.Contains(dirs, string(b.Direction)) {
					t.Errorf("behavior for direction %s, which the kind does not accept (%v)", b.Direction, dirs)
				}
			}
			if len(k.Examples) == 0 {
				t.Error("no examples")
			}
			for _, ex := range append(k.Examples, nil) {
				f, err := ParseFault(rules.FaultSpec{Kind: k.Name, Params: ex})
				if err != nil && ex != nil {
					t.Errorf("example %v: %v", ex, err)
					continue
				}
				if err != nil {
					continue // a kind with a required parameter
				}
				for _, proto := range k.Protocols() {
					e := EffectOf(f.(Fault), proto)
					if !slices.Contains(Outcomes(), e.Outcome) {
						t.Errorf("%v on %s: outcome %q is not one of Outcomes()", ex, proto, e.Outcome)
					}
					if e.ServerKnows && e.Outcome.Commits() == "maybe" {
						t.Errorf("%v on %s: the server cannot know an outcome that may or may not have committed", ex, proto)
					}
				}
			}
		})
	}
}

// TestNewParserLimits: the duration cap is configurable, zero means an
// hour, and the error names the parameter and the cap.
func TestNewParserLimits(t *testing.T) {
	tests := []struct {
		limits Limits
		spec   rules.FaultSpec
		err    string // "" for no error
	}{
		{Limits{}, fault("latency", "delay", "1h"), ""},
		{Limits{}, fault("latency", "delay", "876000h"), "fault.delay is 876000h0m0s, over the maximum of 1h0m0s"},
		{Limits{MaxDuration: 2 * time.Hour}, fault("latency", "delay", "90m"), ""},
		{Limits{MaxDuration: 2 * time.Hour}, fault("timeout", "close_after", "3h"), "fault.close_after is 3h0m0s, over the maximum of 2h0m0s"},
		{Limits{MaxDuration: time.Second}, fault("latency", "delay", "1s", "jitter", "2s"), "fault.jitter is 2s, over the maximum of 1s"},
	}
	for _, tt := range tests {
		_, err := NewParser(tt.limits)(tt.spec)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%v within %+v: %v", tt.spec, tt.limits, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%v within %+v: got %v, want %q", tt.spec, tt.limits, err, tt.err)
		}
		var fe *rules.FieldError
		if err != nil && !errors.As(err, &fe) {
			t.Errorf("%v: %T is not a FieldError", tt.spec, err)
		}
	}
	for _, p := range (Limits{MaxDuration: 2 * time.Hour}).Params(&Timeout{}) {
		if p.Name == "close_after" && p.Max != "2h0m0s" {
			t.Errorf("close_after's max is %v, want 2h0m0s", p.Max)
		}
	}
}

// TestRegistryLimits: the registry parses rules within its Limits.
func TestRegistryLimits(t *testing.T) {
	r := New(Options{Limits: Limits{MaxDuration: time.Minute}})
	defer r.Close()
	if _, err := r.PutRule(rules.Rule{Name: "slow", Fault: fault("latency", "delay", "2m")}); err == nil || !strings.Contains(err.Error(), "over the maximum of 1m0s") {
		t.Fatalf("got %v, want the cap named", err)
	}
	if r.Limits().MaxDuration != time.Minute {
		t.Fatalf("Limits() = %+v", r.Limits())
	}
}
