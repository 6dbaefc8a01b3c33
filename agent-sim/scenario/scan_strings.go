package scenario

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
)

// formatSamples are values for the string formats of JSON Schema that a
// server is likely to check.
var formatSamples = map[string]string{
	"date-time":     "2026-01-02T03:04:05Z",
	"date":          "2026-01-02",
	"time":          "03:04:05Z",
	"duration":      "PT1M",
	"email":         "user@example.com",
	"hostname":      "example.com",
	"ipv4":          "192.0.2.1",
	"ipv6":          "2001:db8::1",
	"uri":           "https://example.com/item/1",
	"url":           "https://example.com/item/1",
	"uri-reference": "/item/1",
	"uuid":          "6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f",
}

// str generates a string for s: its format's sample, else a string
// matching its pattern when the pattern is simple, else a word made from
// the property's name ("order_id" gives "order-1"), fitted to
// minLength/maxLength.
func (gn *gen) str(s map[string]any, name string) string {
	out := ""
	if f, ok := s["format"].(string); ok {
		out = formatSamples[f]
	}
	lo, hi := int(num(s["minLength"], 0)), int(num(s["maxLength"], maxGenString))
	lo, hi = max(0, min(lo, maxGenString)), max(0, min(hi, maxGenString))
	if p, ok := s["pattern"].(string); out == "" && ok && len(p) <= maxGenString {
		// Repeat what the pattern repeats until minLength is met: padding
		// would break the pattern.
		for reps := 1; reps <= 8; reps++ {
			if v, ok := gn.fromPattern(p, reps); ok && (out == "" || len(out) < lo) {
				out = v
			}
			if len(out) >= lo {
				break
			}
		}
		if out != "" {
			return out
		}
	}
	if out == "" {
		out = nameSample(name, 1+gn.rng.IntN(9))
	}
	for len(out) < lo {
		out += "x"
	}
	if len(out) > hi && hi >= lo {
		out = out[:hi]
	}
	return out
}

// nameSample turns a property's name into a plausible value.
func nameSample(name string, n int) string {
	base := strings.ToLower(strings.TrimFunc(name, func(r rune) bool { return !unicode.IsLetter(r) }))
	for _, suffix := range []string{"_id", "id", "_ids", "ids"} {
		if b, ok := strings.CutSuffix(base, suffix); ok && b != "" {
			return fmt.Sprintf("%s-%d", strings.Trim(b, "_-"), n)
		}
	}
	if base == "" {
		base = "sample"
	}
	return fmt.Sprintf("%s-%d", base, n)
}

// fromPattern returns a string the regular expression p matches, built
// from its syntax tree: literals, classes, concatenation, the first
// alternative, and repetitions reps times within their bounds. ok is
// false for what it does not handle, and when the result would be long.
func (gn *gen) fromPattern(p string, reps int) (string, bool) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	budget := 200
	if !gn.emit(&b, re.Simplify(), reps, &budget, 0) {
		return "", false
	}
	return b.String(), true
}

func (gn *gen) emit(b *strings.Builder, re *syntax.Regexp, reps int, budget *int, depth int) bool {
	*budget--
	if *budget < 0 || depth > 2*maxGenDepth || b.Len() > maxGenString {
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) < 2 {
			return false
		}
		b.WriteRune(classRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
	case syntax.OpCapture:
		return gn.emit(b, re.Sub[0], reps, budget, depth+1)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !gn.emit(b, s, reps, budget, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return gn.emit(b, re.Sub[0], reps, budget, depth+1)
	case syntax.OpQuest:
	case syntax.OpStar, syntax.OpPlus:
		n := reps
		if re.Op == syntax.OpStar {
			n--
		}
		for range n {
			if !gn.emit(b, re.Sub[0], reps, budget, depth+1) {
				return false
			}
		}
	case syntax.OpRepeat:
		n := max(re.Min, reps)
		if re.Max >= 0 {
			n = min(n, re.Max)
		}
		for range min(n, 64) {
			if !gn.emit(b, re.Sub[0], reps, budget, depth+1) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// classRune picks a readable rune from a class's ranges: a letter or a
// digit when the class has one, else its first rune.
func classRune(ranges []rune) rune {
	for _, want := range []rune{'A', 'a', '0', '-', '_'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want
			}
		}
	}
	return ranges[0]
}
