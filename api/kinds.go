package api

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"

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

// kindParams reads a kind's parameters from the json tags of its
// parameter struct (as the decoder does), and their defaults from the
// struct as the kind's constructor fills it.
func kindParams(f inject.Fault) []KindParam {
	v := reflect.ValueOf(f)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	t := v.Type()
	params := []KindParam{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" || !t.Field(i).IsExported() {
			continue
		}
		ft, fv := t.Field(i).Type, v.Field(i)
		p := KindParam{Name: name, Type: paramType(ft)}
		if ft == reflect.TypeFor[inject.Direction]() {
			p.Choices = []string{string(inject.Request), string(inject.Response), string(inject.Both)}
		}
		if !fv.IsZero() {
			// The JSON form is the one a client writes ("250ms", not
			// 250000000); parameter types always encode.
			raw, _ := json.Marshal(fv.Interface())
			_ = json.Unmarshal(raw, &p.Default)
		}
		params = append(params, p)
	}
	return params
}

func paramType(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[inject.Duration]():
		return "duration"
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "integer"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "number"
	}
	return "object"
}

// listKinds serves GET /v1/kinds: the fault kinds, their parameters and
// defaults, for forms and scripts (`mcpchaos faults` prints the same).
func (s *Server) listKinds(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, KindList{Kinds: kinds()})
}
