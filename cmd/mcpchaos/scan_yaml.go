package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// plainRE is a string YAML reads back as the same string without quotes.
var plainRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_./-]*$`)

// yamlWords are plain strings YAML would read as something else.
var yamlWords = []string{"true", "false", "null", "yes", "no", "on", "off", "y", "n"}

// yv writes v as YAML flow: plain words where YAML reads them back as
// the same strings, JSON (which is YAML) for anything else, so the saved
// scenario reads like one written by hand and quoting is never in doubt.
func yv(v any) string {
	switch x := v.(type) {
	case string:
		if plainRE.MatchString(x) && !slices.Contains(yamlWords, strings.ToLower(x)) {
			return x
		}
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = yv(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []any:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = yv(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, yv(k)+": "+yv(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case json.Number:
		return x.String()
	}
	return js(v)
}

// yamlKV writes one flow mapping from ordered key/value pairs.
func yamlKV(kv ...any) string {
	parts := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, fmt.Sprintf("%s: %s", kv[i], yv(kv[i+1])))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
