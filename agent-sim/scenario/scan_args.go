package scenario

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Bounds on argument generation: a schema from a server is untrusted
// input, so neither its depth nor its sizes may make the generator loop
// or allocate without end.
const (
	maxGenDepth  = 8
	maxGenNodes  = 2000
	maxGenItems  = 3
	maxGenString = 256
)

// ArgGen generates a tool's arguments from its input schema,
// deterministically from a seed. The zero value is not usable; see
// [NewArgGen].
type ArgGen struct {
	seed uint64
}

// NewArgGen returns a generator whose choices depend only on seed and the
// tool's name.
func NewArgGen(seed uint64) ArgGen { return ArgGen{seed: seed} }

// gen is one generation: a random source and a node budget.
type gen struct {
	rng   *rand.Rand
	nodes int
	root  map[string]any
}

func (g ArgGen) start(tool string, schema any) *gen {
	h := fnv.New64a()
	h.Write([]byte(tool))
	root, _ := schema.(map[string]any)
	return &gen{rng: rand.New(rand.NewPCG(g.seed, h.Sum64())), root: root}
}

// Valid returns arguments that satisfy schema as far as the generator
// understands it: required properties (and only those), their types,
// enums and consts, string formats and simple patterns, lengths, numeric
// ranges, nested objects and arrays. Optional properties are left out:
// the fewer arguments, the fewer ways to trip a server's own rules.
func (g ArgGen) Valid(tool string, schema any) map[string]any {
	gn := g.start(tool, schema)
	v, _ := gn.value(gn.root, "", 0).(map[string]any)
	if v == nil {
		v = map[string]any{}
	}
	return v
}

// Invalid returns arguments that break schema on purpose, for the
// input-validation check, and what it broke; ok is false when the schema
// constrains nothing the generator can break (no required property and
// no typed one).
func (g ArgGen) Invalid(tool string, schema any) (args map[string]any, broke string, ok bool) {
	gn := g.start(tool, schema)
	valid, _ := gn.value(gn.root, "", 0).(map[string]any)
	if valid == nil {
		valid = map[string]any{}
	}
	s := gn.resolve(gn.root, 0)
	if req := stringList(s["required"]); len(req) > 0 {
		delete(valid, req[0])
		return valid, "required property " + req[0] + " left out", true
	}
	props, _ := s["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		ps, _ := props[name].(map[string]any)
		switch firstType(gn.resolve(ps, 1)) {
		case "string":
			valid[name] = 12345
		case "integer", "number", "boolean", "object", "array":
			valid[name] = "not-a-" + firstType(gn.resolve(ps, 1))
		default:
			continue
		}
		return valid, name + " given the wrong type", true
	}
	return nil, "", false
}

// value generates one value for schema s; name is the property's name,
// a hint for strings ("order_id" gives "order-1").
func (gn *gen) value(s map[string]any, name string, depth int) any {
	gn.nodes++
	if depth > maxGenDepth || gn.nodes > maxGenNodes {
		return nil
	}
	s = gn.resolve(s, depth)
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[gn.rng.IntN(len(e))]
	}
	if v, ok := s["default"]; ok {
		return v
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[key].([]any); ok {
			for _, a := range alts {
				if as, ok := a.(map[string]any); ok && firstType(as) != "null" {
					return gn.value(as, name, depth+1)
				}
			}
		}
	}
	if all, ok := s["allOf"].([]any); ok && len(all) > 0 {
		merged := map[string]any{}
		for _, a := range all[:min(len(all), maxGenItems*2)] {
			if as, ok := a.(map[string]any); ok {
				mergeSchema(merged, gn.resolve(as, depth+1))
			}
		}
		mergeSchema(merged, s)
		delete(merged, "allOf")
		return gn.value(merged, name, depth+1)
	}
	switch firstType(s) {
	case "object":
		return gn.object(s, depth)
	case "array":
		return gn.array(s, name, depth)
	case "integer":
		return gn.number(s, true)
	case "number":
		return gn.number(s, false)
	case "boolean":
		return false
	case "null":
		return nil
	case "string":
		return gn.str(s, name)
	}
	if _, ok := s["properties"]; ok {
		return gn.object(s, depth)
	}
	return gn.str(s, name)
}

func (gn *gen) object(s map[string]any, depth int) map[string]any {
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	for _, name := range stringList(s["required"]) {
		ps, _ := props[name].(map[string]any)
		out[name] = gn.value(ps, name, depth+1)
		if len(out) >= maxGenNodes/10 {
			break
		}
	}
	return out
}

func (gn *gen) array(s map[string]any, name string, depth int) []any {
	n := max(1, int(num(s["minItems"], 1)))
	if mx, ok := s["maxItems"]; ok {
		n = min(n, int(num(mx, 1)))
	}
	n = min(max(n, 0), maxGenItems)
	items, _ := s["items"].(map[string]any)
	unique, _ := s["uniqueItems"].(bool)
	out := make([]any, 0, n)
	for i := 0; i < n*3 && len(out) < n; i++ {
		v := gn.value(items, strings.TrimSuffix(name, "s"), depth+1)
		if unique && slices.ContainsFunc(out, func(o any) bool { return fmt.Sprint(o) == fmt.Sprint(v) }) {
			continue
		}
		out = append(out, v)
	}
	return out
}

func (gn *gen) number(s map[string]any, integer bool) any {
	lo, hi := -1e9, 1e9
	if v, ok := s["minimum"]; ok {
		lo = num(v, lo)
	}
	if v, ok := s["exclusiveMinimum"].(float64); ok {
		lo = v + 1
	}
	if v, ok := s["maximum"]; ok {
		hi = num(v, hi)
	}
	if v, ok := s["exclusiveMaximum"].(float64); ok {
		hi = v - 1
	}
	// Small positive numbers are what a quantity, a page or a count
	// expects; the range is honoured when it says otherwise.
	x := 1 + float64(gn.rng.IntN(5))
	x = math.Max(lo, math.Min(hi, x))
	if m := num(s["multipleOf"], 0); m > 0 && !math.IsInf(x/m, 0) {
		x = math.Ceil(x/m) * m
	}
	if integer {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<53 {
			return 1
		}
		return int64(math.Ceil(x))
	}
	return x
}

// resolve follows a local $ref ("#/$defs/x", "#/definitions/x"), a
// bounded number of times.
func (gn *gen) resolve(s map[string]any, depth int) map[string]any {
	for range maxGenDepth {
		ref, ok := s["$ref"].(string)
		if !ok || depth > maxGenDepth {
			break
		}
		var next map[string]any
		for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
			if name, ok := strings.CutPrefix(ref, prefix); ok {
				defs, _ := gn.root[strings.Trim(prefix[1:], "/")].(map[string]any)
				next, _ = defs[name].(map[string]any)
			}
		}
		if next == nil {
			break
		}
		s = next
	}
	if s == nil {
		return map[string]any{}
	}
	return s
}

// firstType is the schema's type, the first non-null one of a list.
func firstType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok && str != "null" {
				return str
			}
		}
	}
	return ""
}

func mergeSchema(into, s map[string]any) {
	for k, v := range s {
		switch k {
		case "properties":
			p, _ := into[k].(map[string]any)
			if p == nil {
				p = map[string]any{}
			}
			src, _ := v.(map[string]any)
			for pk, pv := range src {
				p[pk] = pv
			}
			into[k] = p
		case "required":
			req := stringList(into[k])
			for _, r := range stringList(v) {
				if !slices.Contains(req, r) {
					req = append(req, r)
				}
			}
			out := make([]any, len(req))
			for i, r := range req {
				out[i] = r
			}
			into[k] = out
		default:
			into[k] = v
		}
	}
}

func stringList(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func num(v any, def float64) float64 {
	switch n := v.(type) {
	case float64:
		if !math.IsNaN(n) {
			return n
		}
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return def
}
