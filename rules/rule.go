package rules

import (
	"fmt"
	"maps"
	"reflect"
	"time"
)

// Rule is one entry of a rule set: when its condition holds on an upstream,
// its fault is injected.
type Rule struct {
	// Name identifies the rule; it is unique within a set.
	Name string
	// Upstream restricts the rule to one upstream; empty means every
	// upstream. A forward proxy's name covers every destination reached
	// through it (see [Env].Via).
	Upstream string
	// When is an expr-lang expression over [Env] that must yield a bool;
	// empty means always.
	When string
	// Fault is what to inject.
	Fault FaultSpec
	// Probability is the chance, in [0, 1], that a matching connection
	// (TCP) or request (HTTP) is affected. Nil means 1. Zero is an exact
	// no-op.
	Probability *float64
	// Limit caps the number of injections; zero means no cap.
	Limit int
	// TTL is how long the rule lives after it is added; zero means the
	// table's default. Expired rules never match. A TTL over the table's
	// MaxTTL is refused.
	TTL time.Duration
	// Disabled keeps the rule in the set without letting it match.
	Disabled bool
}

// FaultSpec is a fault kind and its parameters, as written in a config
// file or sent to the API. The rules package does not interpret it; the
// [ParseFault] function given to [Compile] does.
type FaultSpec struct {
	Kind   string
	Params map[string]any
}

// sameDefinition reports whether two rules inject the same fault into the
// same traffic, so that a rule re-submitted with it keeps its state: its
// hit count (what limit counts) and its TTL clock. Disabled and TTL are
// control fields, not part of the definition: pausing a rule, or
// changing its ttl, does not make it a new rule (see [Table.Put]).
func (r Rule) sameDefinition(o Rule) bool {
	if r.Name != o.Name || r.Upstream != o.Upstream || r.When != o.When ||
		r.Limit != o.Limit || r.Fault.Kind != o.Fault.Kind {
		return false
	}
	if (r.Probability == nil) != (o.Probability == nil) ||
		(r.Probability != nil && *r.Probability != *o.Probability) {
		return false
	}
	return maps.EqualFunc(r.Fault.Params, o.Fault.Params, func(a, b any) bool {
		return reflect.DeepEqual(a, b)
	})
}

// scopes reports whether the rule may apply to traffic of upstream that
// came through the forward proxy via ("" for none).
func (r *Rule) scopes(upstream, via string) bool {
	return r.Upstream == "" || r.Upstream == upstream || (via != "" && r.Upstream == via)
}

// Chance returns the rule's probability, 1 when unset.
func (r Rule) Chance() float64 {
	if r.Probability == nil {
		return 1
	}
	return *r.Probability
}

func (r Rule) validate() error {
	if r.Name == "" {
		return &FieldError{Field: "name", Msg: "is required"}
	}
	if r.Fault.Kind == "" {
		return &FieldError{Rule: r.Name, Field: "fault.kind", Msg: "is required"}
	}
	if p := r.Chance(); p < 0 || p > 1 || p != p {
		return &FieldError{Rule: r.Name, Field: "probability", Msg: fmt.Sprintf("must be within [0, 1], got %v", p)}
	}
	if r.Limit < 0 {
		return &FieldError{Rule: r.Name, Field: "limit", Msg: "must not be negative"}
	}
	if r.TTL < 0 {
		return &FieldError{Rule: r.Name, Field: "ttl", Msg: "must not be negative"}
	}
	return nil
}
