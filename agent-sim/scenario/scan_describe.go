package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// maxDescribe bounds a schema's one-line description.
const maxDescribe = 400

// DescribeSchema writes an input schema in one compact line, for a person
// to read: {order_id*: string, qty: integer 1..3, speed: standard|express,
// address*: {street*: string}, items: [{sku*: string}]}; * marks a
// required property. Deep or long schemas are cut with "…".
func DescribeSchema(schema any) string {
	s, _ := schema.(map[string]any)
	gn := &gen{root: s}
	out := gn.describe(s, 0)
	if len(out) > maxDescribe {
		out = out[:maxDescribe] + "…"
	}
	return out
}

func (gn *gen) describe(s map[string]any, depth int) string {
	gn.nodes++
	if depth > 4 || gn.nodes > 200 {
		return "…"
	}
	s = gn.resolve(s, depth)
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		parts := make([]string, 0, len(e))
		for _, v := range e[:min(len(e), 6)] {
			parts = append(parts, fmt.Sprint(v))
		}
		if len(e) > 6 {
			parts = append(parts, "…")
		}
		return strings.Join(parts, "|")
	}
	if c, ok := s["const"]; ok {
		return fmt.Sprintf("%q", fmt.Sprint(c))
	}
	t := firstType(s)
	switch {
	case t == "object" || (t == "" && s["properties"] != nil):
		props, _ := s["properties"].(map[string]any)
		req := stringList(s["required"])
		parts := make([]string, 0, len(props))
		for _, name := range slices.Sorted(maps.Keys(props)) {
			ps, _ := props[name].(map[string]any)
			mark := ""
			if slices.Contains(req, name) {
				mark = "*"
			}
			parts = append(parts, name+mark+": "+gn.describe(ps, depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case t == "array":
		items, _ := s["items"].(map[string]any)
		return "[" + gn.describe(items, depth+1) + "]"
	case t == "":
		return "any"
	}
	if f, ok := s["format"].(string); ok {
		t += " (" + f + ")"
	}
	lo, hasLo := s["minimum"]
	hi, hasHi := s["maximum"]
	if hasLo || hasHi {
		t += fmt.Sprintf(" %v..%v", orEmpty(lo, hasLo), orEmpty(hi, hasHi))
	}
	return t
}

func orEmpty(v any, ok bool) any {
	if !ok {
		return ""
	}
	return v
}
