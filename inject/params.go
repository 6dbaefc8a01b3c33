package inject

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// Param describes one parameter of a fault kind, for help texts, the API,
// the dashboard's form and the checks ParseFault makes: it is read from
// the tags of the kind's parameter struct, the one place a parameter and
// its bounds are written:
//
//	Bytes int64 `json:"bytes" min:"0" doc:"how many bytes get through"`
type Param struct {
	Name string
	// Type is duration (a string like "250ms"), string, integer, number,
	// boolean or object (a map of strings, e.g. http_error's headers).
	Type string
	// Doc says what the parameter does, in a phrase.
	Doc string
	// Default is the value the kind uses when the parameter is left out,
	// in the form a rule writes it ("250ms", not 250000000); nil when
	// that is the type's zero value.
	Default any
	// Required parameters have no usable default.
	Required bool
	// Choices lists the values this kind accepts, for a closed set
	// (direction, mode).
	Choices []string
	// Min and Max bound an integer (int64) or a duration (a duration
	// string); nil when unbounded. Every duration is bounded by
	// [Limits.MaxDuration].
	Min, Max any
}

// Params describes f's parameters with the default [Limits].
func Params(f Fault) []Param { return Limits{}.Params(f) }

// Params reads a kind's parameters from the tags of its parameter struct,
// as ParseFault decodes them, and their defaults from the struct as the
// kind's New fills it (marshalling f instead would leave out every
// omitempty parameter).
func (l Limits) Params(f Fault) []Param {
	v := reflect.ValueOf(f)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	t := v.Type()
	params := []Param{}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		p := Param{Name: name, Type: paramType(sf.Type), Doc: sf.Tag.Get("doc"), Required: sf.Tag.Get("required") == "true"}
		if c := sf.Tag.Get("choices"); c != "" {
			p.Choices = strings.Split(c, ",")
		}
		if p.Type == "duration" {
			p.Min, p.Max = "0s", l.maxDuration().String()
		}
		if s := sf.Tag.Get("min"); s != "" {
			p.Min = mustInt(s)
		}
		if s := sf.Tag.Get("max"); s != "" {
			p.Max = mustInt(s)
		}
		if fv := v.Field(i); !fv.IsZero() {
			raw, _ := json.Marshal(fv.Interface())
			_ = json.Unmarshal(raw, &p.Default)
		}
		params = append(params, p)
	}
	return params
}

// mustInt reads a bound from a struct tag; TestKindsSpec checks every tag
// parses, so a typo fails the tests rather than a user's request.
func mustInt(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("inject: bad bound %q in a parameter tag", s))
	}
	return n
}

func paramType(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[Duration]():
		return "duration"
	case t == reflect.TypeFor[Direction]() || t.Kind() == reflect.String:
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

// checkParams holds a decoded fault to its parameters' description:
// required parameters, choices and bounds. Errors name the parameter.
func (l Limits) checkParams(f Fault) error {
	v := reflect.ValueOf(f).Elem()
	for i, p := range l.Params(f) {
		fv := v.Field(fieldIndex(v.Type(), i))
		field := "fault." + p.Name
		if p.Required && fv.IsZero() {
			return &rules.FieldError{Field: field, Msg: "is required (" + p.Doc + ")"}
		}
		switch x := fv.Interface().(type) {
		case Direction:
			if err := checkChoice(field, string(x), p.Choices); err != nil {
				return err
			}
		case string:
			if err := checkChoice(field, x, p.Choices); err != nil {
				return err
			}
		case Duration:
			if max := l.maxDuration(); time.Duration(x) > max {
				return &rules.FieldError{Field: field, Msg: fmt.Sprintf("is %v, over the maximum of %v (the server's --max-fault-duration)", time.Duration(x), max)}
			}
		case int64:
			if err := checkRange(field, x, p.Min, p.Max); err != nil {
				return err
			}
		case int:
			if err := checkRange(field, int64(x), p.Min, p.Max); err != nil {
				return err
			}
		}
	}
	return nil
}

// fieldIndex maps the i-th parameter to its struct field (unexported and
// untagged fields are not parameters).
func fieldIndex(t reflect.Type, i int) int {
	for j := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(j).Tag.Get("json"), ",")
		if name == "" || name == "-" || !t.Field(j).IsExported() {
			continue
		}
		if i == 0 {
			return j
		}
		i--
	}
	return -1
}

func checkChoice(field, v string, choices []string) error {
	if len(choices) == 0 {
		return nil
	}
	for _, c := range choices {
		if v == c {
			return nil
		}
	}
	list := strings.Join(choices, " or ")
	if len(choices) > 2 {
		list = strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
	}
	return &rules.FieldError{Field: field, Msg: fmt.Sprintf("must be %s, not %q", list, v)}
}

func checkRange(field string, v int64, lo, hi any) error {
	lt := lo != nil && v < lo.(int64)
	gt := hi != nil && v > hi.(int64)
	switch {
	case !lt && !gt:
		return nil
	case lo != nil && hi != nil:
		return &rules.FieldError{Field: field, Msg: fmt.Sprintf("must be %d-%d, not %d", lo, hi, v)}
	case lt && lo.(int64) == 0:
		return &rules.FieldError{Field: field, Msg: fmt.Sprintf("must not be negative: %d", v)}
	case lt:
		return &rules.FieldError{Field: field, Msg: fmt.Sprintf("must be at least %d, not %d", lo, v)}
	}
	return &rules.FieldError{Field: field, Msg: fmt.Sprintf("must be at most %d, not %d", hi, v)}
}
