package inject

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Param describes one parameter of a fault kind, for help texts, the API
// and the dashboard's form.
type Param struct {
	Name string
	// Type is duration (a string like "250ms"), string, integer, number,
	// boolean or object (a map of strings, e.g. http_error's headers).
	Type string
	// Default is the value the kind uses when the parameter is left out,
	// in the form a rule writes it ("250ms", not 250000000); nil when
	// that is the type's zero value.
	Default any
	// Choices lists the values of a closed set (direction); a kind may
	// accept fewer of them.
	Choices []string
}

// Params reads a kind's parameters from the json tags of its parameter
// struct, as ParseFault decodes them, and their defaults from the struct
// as the kind's New fills it. It is the one description of parameters:
// marshalling f instead would leave out every omitempty parameter.
func Params(f Fault) []Param {
	v := reflect.ValueOf(f)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	t := v.Type()
	params := []Param{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" || !t.Field(i).IsExported() {
			continue
		}
		ft, fv := t.Field(i).Type, v.Field(i)
		p := Param{Name: name, Type: paramType(ft)}
		if ft == reflect.TypeFor[Direction]() {
			p.Choices = []string{string(Request), string(Response), string(Both)}
		}
		if !fv.IsZero() {
			raw, _ := json.Marshal(fv.Interface())
			_ = json.Unmarshal(raw, &p.Default)
		}
		params = append(params, p)
	}
	return params
}

func paramType(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[Duration]():
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
