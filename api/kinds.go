package api

import (
	"net/http"

	"github.com/mcpchaos/mcpchaos/inject"
)

// KindParam is one parameter of a fault kind.
type KindParam struct {
	Name string `json:"name"`
	// Type is duration (a string like "250ms"), string, integer, boolean
	// or object (a map of strings, e.g. HTTP headers).
	Type string `json:"type"`
	// Doc says what the parameter does.
	Doc string `json:"doc"`
	// Default is the value the kind uses when the parameter is left out;
	// absent when that is the type's zero value.
	Default any `json:"default,omitempty"`
	// Required parameters have no usable default.
	Required bool `json:"required,omitempty"`
	// Choices lists the values this kind accepts, for a closed set
	// (direction, mode).
	Choices []string `json:"choices,omitempty"`
	// Min and Max bound an integer (a number) or a duration (a duration
	// string; Max is this server's --max-fault-duration).
	Min any `json:"min,omitempty"`
	Max any `json:"max,omitempty"`
}

// KindBehavior is what a kind does on one protocol (empty: both), for one
// direction (empty: any).
type KindBehavior struct {
	Protocol  string `json:"protocol,omitempty"`
	Direction string `json:"direction,omitempty"`
	Text      string `json:"text"`
}

// KindOutcome is the outcome a kind leaves the server with, on one
// protocol with example parameters (docs/faults.md, "Outcomes").
type KindOutcome struct {
	Params      map[string]any `json:"params"`
	Protocol    string         `json:"protocol"`
	Outcome     string         `json:"outcome"`
	ServerKnows bool           `json:"server_knows"`
}

// Kind is a fault kind, as GET /v1/kinds lists it: its specification.
type Kind struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// TCP, HTTP and MCP report which upstream protocols the kind applies
	// to.
	TCP      bool           `json:"tcp"`
	HTTP     bool           `json:"http"`
	MCP      bool           `json:"mcp"`
	Params   []KindParam    `json:"params"`
	Behavior []KindBehavior `json:"behavior"`
	Outcomes []KindOutcome  `json:"outcomes"`
}

// KindList is the body of GET /v1/kinds.
type KindList struct {
	Kinds []Kind `json:"kinds"`
}

// kinds describes inject.Kinds(): the one registry of fault kinds, so a
// kind added there appears here (and in the dashboard's form) unchanged.
// Bounds are those of l, the registry's.
func kinds(l inject.Limits) []Kind {
	var out []Kind
	for _, k := range inject.Kinds() {
		kind := Kind{Name: k.Name, Summary: k.Summary, TCP: k.TCP, HTTP: k.HTTP, MCP: k.MCP, Params: kindParams(l, k.New()),
			Behavior: []KindBehavior{}, Outcomes: []KindOutcome{}}
		for _, b := range k.Behavior {
			kind.Behavior = append(kind.Behavior, KindBehavior{Protocol: b.Protocol, Direction: string(b.Direction), Text: b.Text})
		}
		for _, r := range k.OutcomeTable() {
			kind.Outcomes = append(kind.Outcomes, KindOutcome{Params: r.Params, Protocol: r.Protocol,
				Outcome: string(r.Effect.Outcome), ServerKnows: r.Effect.ServerKnows})
		}
		out = append(out, kind)
	}
	return out
}

// kindParams converts inject's description of a kind's parameters.
func kindParams(l inject.Limits, f inject.Fault) []KindParam {
	params := []KindParam{}
	for _, p := range l.Params(f) {
		params = append(params, KindParam{Name: p.Name, Type: p.Type, Doc: p.Doc, Default: p.Default,
			Required: p.Required, Choices: p.Choices, Min: p.Min, Max: p.Max})
	}
	return params
}

// listKinds serves GET /v1/kinds: the fault kinds, their parameters with
// defaults and bounds, what they do and the outcome they leave, for forms
// and scripts (`mcpchaos faults` prints the same).
func (s *Server) listKinds(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, KindList{Kinds: kinds(s.reg.Limits())})
}
