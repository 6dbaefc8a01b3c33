package config

import (
	"math"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

// DurationHint is appended to every "not a duration" message; it matches
// the fault layer's wording.
const DurationHint = "(write it like 250ms, 2s or 1m30s)"

// scalar returns the text of a scalar node and whether it is one.
func (n Node) scalar() (string, bool) {
	switch v := n.n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		if v.Value == nil {
			return "", true
		}
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return v.GetToken().Value, true
	}
	return "", false
}

// String reads a scalar as text; numbers and booleans are taken as
// written (a name may well be 2024). Absent or null is "".
func (n Node) String() (string, error) {
	if !n.Present() {
		return "", nil
	}
	s, ok := n.scalar()
	if !ok {
		return "", n.Errorf(ErrType, "must be a string, not %s", n.kind())
	}
	return s, nil
}

// Int reads an integer. Absent or null is 0.
func (n Node) Int() (int, error) {
	if !n.Present() {
		return 0, nil
	}
	v, ok := n.n.(*ast.IntegerNode)
	if !ok {
		return 0, n.Errorf(ErrType, "must be a whole number, not %s", n.kind())
	}
	switch x := v.Value.(type) {
	case int64:
		if x >= math.MinInt && x <= math.MaxInt {
			return int(x), nil
		}
	case uint64:
		if x <= math.MaxInt {
			return int(x), nil
		}
	}
	return 0, n.Errorf(ErrInvalid, "%s is out of range", v.GetToken().Value)
}

// Uint64 reads a non-negative integer (a seed). Absent or null is 0.
func (n Node) Uint64() (uint64, error) {
	if !n.Present() {
		return 0, nil
	}
	v, ok := n.n.(*ast.IntegerNode)
	if !ok {
		return 0, n.Errorf(ErrType, "must be a whole number, not %s", n.kind())
	}
	switch x := v.Value.(type) {
	case int64:
		if x >= 0 {
			return uint64(x), nil
		}
	case uint64:
		return x, nil
	}
	return 0, n.Errorf(ErrInvalid, "must not be negative, got %s", v.GetToken().Value)
}

// Float reads a number. Absent or null is 0.
func (n Node) Float() (float64, error) {
	if !n.Present() {
		return 0, nil
	}
	switch v := n.n.(type) {
	case *ast.FloatNode:
		return v.Value, nil
	case *ast.IntegerNode:
		switch x := v.Value.(type) {
		case int64:
			return float64(x), nil
		case uint64:
			return float64(x), nil
		}
	}
	return 0, n.Errorf(ErrType, "must be a number, not %s", n.kind())
}

// Bool reads true or false. Absent or null is def.
func (n Node) Bool(def bool) (bool, error) {
	if !n.Present() {
		return def, nil
	}
	v, ok := n.n.(*ast.BoolNode)
	if !ok {
		return false, n.Errorf(ErrType, "must be true or false, not %s", n.kind())
	}
	return v.Value, nil
}

// Duration reads a Go duration string ("250ms", "2s"). Absent or null
// is 0; negative durations are refused.
func (n Node) Duration() (time.Duration, error) {
	if !n.Present() {
		return 0, nil
	}
	s, ok := n.scalar()
	if !ok {
		return 0, n.Errorf(ErrType, "must be a duration %s, not %s", DurationHint, n.kind())
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, n.Errorf(ErrInvalid, "%q is not a duration %s", s, DurationHint)
	}
	return d, nil
}

// Strings reads a list of strings; a single string is a list of one.
func (n Node) Strings() ([]string, error) {
	if !n.Present() {
		return nil, nil
	}
	if s, ok := n.scalar(); ok {
		return []string{s}, nil
	}
	items, err := n.Items()
	if err != nil {
		return nil, n.Errorf(ErrType, "must be a list of strings, not %s", n.kind())
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, err := it.String()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// StringMap reads a mapping of strings (environment, headers).
func (n Node) StringMap() (map[string]string, error) {
	m, err := n.Mapping()
	if err != nil {
		return nil, err
	}
	if len(m.keys) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(m.keys))
	for _, k := range m.keys {
		s, err := m.Get(k).String()
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, nil
}

// maxValueNodes bounds what [Node.Value] builds, so that aliases nested
// to expand exponentially ("billion laughs") are refused.
const maxValueNodes = 100_000

// Value reads any value as plain Go data, the shape encoding/json would
// produce: map[string]any, []any, string, bool, nil, and int64 or
// float64 for numbers.
func (n Node) Value() (any, error) {
	budget := maxValueNodes
	return n.value(&budget, 0)
}

func (n Node) value(budget *int, depth int) (any, error) {
	*budget--
	if *budget < 0 || depth > 100 {
		return nil, n.Errorf(ErrInvalid, "is too large or too deeply nested")
	}
	switch v := n.n.(type) {
	case nil, *ast.NullNode:
		return nil, nil
	case *ast.MappingNode, *ast.MappingValueNode:
		m, err := n.Mapping()
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, len(m.keys))
		for _, k := range m.keys {
			if out[k], err = m.Get(k).value(budget, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *ast.SequenceNode:
		items, _ := n.Items()
		out := make([]any, 0, len(items))
		for _, it := range items {
			x, err := it.value(budget, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case *ast.IntegerNode:
		switch x := v.Value.(type) {
		case int64:
			return x, nil
		case uint64:
			if x <= math.MaxInt64 {
				return int64(x), nil
			}
			return float64(x), nil
		}
		return v.GetToken().Value, nil
	case *ast.FloatNode:
		return v.Value, nil
	case *ast.InfinityNode, *ast.NanNode:
		return nil, n.Errorf(ErrInvalid, "%s is not a usable number", v.GetToken().Value)
	case *ast.BoolNode:
		return v.Value, nil
	}
	if s, ok := n.scalar(); ok {
		return s, nil
	}
	return nil, n.Errorf(ErrType, "cannot be %s", strings.TrimPrefix(n.kind(), "a "))
}
