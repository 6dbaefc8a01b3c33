package api

import (
	"net/http"

	"github.com/mcpchaos/mcpchaos/inject"
)

// KindParam is one parameter of a fault kind.
type KindParam struct {
	Name string `json:"name"`
	// Type is duration (a string like "250ms"), string, integer, boolean
	// or object (a map of strings, e.g. http_error's headers).
	Type string `json:"type"`
	// Default is the value the kind uses when the parameter is left out;
	// absent when that is the type's zero value.
	Default any `json:"default,omitempty"`
	// Choices lists the values the parameter's type allows, when it is a
	// closed set (direction); a kind may accept fewer of them.
	Choices []string `json:"choices,omitempty"`
}

// Kind is a fault kind, as GET /v1/kinds lists it.
type Kind struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// TCP and HTTP report which upstream protocols the kind applies to.
	TCP    bool        `json:"tcp"`
	HTTP   bool        `json:"http"`
	Params []KindParam `json:"params"`
}

// KindList is the body of GET /v1/kinds.
type KindList struct {
	Kinds []Kind `json:"kinds"`
}

// kinds describes inject.Kinds(): the one registry of fault kinds, so a
// kind added there appears here (and in the dashboard's form) unchanged.
func kinds() []Kind {
	var out []Kind
	for _, k := range inject.Kinds() {
		out = append(out, Kind{Name: k.Name, Summary: k.Summary, TCP: k.TCP, HTTP: k.HTTP, Params: kindParams(k.New())})
	}
	return out
}

// kindParams converts inject's description of a kind's parameters.
func kindParams(f inject.Fault) []KindParam {
	params := []KindParam{}
	for _, p := range inject.Params(f) {
		params = append(params, KindParam{Name: p.Name, Type: p.Type, Default: p.Default, Choices: p.Choices})
	}
	return params
}

// listKinds serves GET /v1/kinds: the fault kinds, their parameters and
// defaults, for forms and scripts (`mcpchaos faults` prints the same).
func (s *Server) listKinds(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, KindList{Kinds: kinds()})
}
