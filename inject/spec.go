package inject

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpchaos/mcpchaos/rules"
)

// OutcomeRow is one line of a kind's outcome table: its effect on one
// protocol with one of its example parameter sets.
type OutcomeRow struct {
	Params   map[string]any
	Protocol string
	Effect   Effect
}

// OutcomeTable computes the effect of each of k's examples on each
// protocol it applies to, from the kind's own effect method: the table in
// the documentation, `mcpchaos faults` and /v1/kinds.
func (k KindInfo) OutcomeTable() []OutcomeRow {
	var rows []OutcomeRow
	for _, ex := range k.Examples {
		f, err := ParseFault(rules.FaultSpec{Kind: k.Name, Params: ex})
		if err != nil {
			continue // TestKindsSpec fails on it
		}
		for _, proto := range k.Protocols() {
			rows = append(rows, OutcomeRow{Params: ex, Protocol: proto, Effect: EffectOf(f.(Fault), proto)})
		}
	}
	return rows
}

// FormatParams writes a parameter set the way a rule's flow mapping
// does, in name order: "bytes: 10, direction: request".
func FormatParams(params map[string]any) string {
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		raw, _ := json.Marshal(params[n])
		parts = append(parts, n+": "+strings.Trim(string(raw), `"`))
	}
	if len(parts) == 0 {
		return "(defaults)"
	}
	return strings.Join(parts, ", ")
}

// Bounds says which values p accepts, in a few words: "0s-1h0m0s",
// "at least 0", "200-599", "request or response"; "" when any value of
// its type goes.
func (p Param) Bounds() string {
	switch {
	case len(p.Choices) > 0:
		return strings.Join(p.Choices, ", ")
	case p.Min != nil && p.Max != nil:
		return fmt.Sprintf("%v-%v", p.Min, p.Max)
	case p.Min != nil:
		return fmt.Sprintf("at least %v", p.Min)
	case p.Max != nil:
		return fmt.Sprintf("at most %v", p.Max)
	}
	return ""
}
