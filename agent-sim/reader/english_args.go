package reader

import (
	"strconv"
	"strings"
)

// The argument-hint patterns: what, around a schema argument's name,
// asks the model to set or change it.
var (
	// argAfterRE after a schema argument says it is wrong or needed.
	argAfterRE = re("^[`'\"]?\\s*(argument|parameter|field|param|should be|must be|is required|is missing|is invalid|was invalid|is too|must not|cannot be|has to be|needs to be)\\b")
	// assignValueRE reads `: value` or `= value` after an argument name.
	assignValueRE = re("^[`'\"]?\\s*[:=]\\s*(\"[^\"]*\"|'[^']*'|`[^`]*`|true|false|null|-?\\d+(?:\\.\\d+)?\\b|[a-z0-9_.-]+)")
	// argListRE continues a list of arguments: "narrow start_date and
	// end_date".
	argListRE    = re("(\\band|\\bor|,)\\s+(the\\s+)?[`'\"]?$")
	validationRE = re(`^(field required|input should|value error|string should|ensure this|value is not|extra inputs|missing)\b`)
	prohibitRE   = re(`\b(do not|don't|never|avoid|must not|should not|without)\b`)
)

// findArgs reads the schema arguments of the current tool the reply tells
// the model to set or change: an argument named after a verb that asks
// for a change ("narrow start_date", "the ledger argument", "missing
// required argument 'order_id'", "set force: true"). Masked spans (URLs,
// quoted bodies) were blanked, so a query string never yields one.
func findArgs(p *prepared, params []string) []Arg {
	var out []Arg
	for i, sp := range p.sents {
		low := p.low(sp)
		// Pydantic prints a failing field as a line of its own, then the
		// reason: "url\n  Field required [type=missing, …]".
		if i+1 < len(p.sents) && validationRE.MatchString(p.low(p.sents[i+1])) {
			for _, name := range params {
				if low == asciiLower(name) && !hasArg(out, name) && len(out) < maxArgs {
					out = append(out, Arg{Name: name, Evidence: Evidence{Source: p.quote(p.sents[i+1]), Confidence: Tentative}})
				}
			}
		}
		if strings.Contains(low, "with the user") {
			continue // the user checks it; the model does not change it
		}
		for _, name := range params {
			if name == "" || len(out) >= maxArgs || hasArg(out, name) {
				continue
			}
			ln := asciiLower(name)
			for from := 0; from < len(low); {
				i := strings.Index(low[from:], ln)
				if i < 0 {
					break
				}
				pos := from + i
				from = pos + len(ln)
				if !wordAt(low, pos, from) {
					continue
				}
				before, after := low[max(0, pos-60):pos], low[from:min(len(low), from+60)]
				m := assignValueRE.FindStringSubmatchIndex(after)
				listed := len(out) > 0 && out[len(out)-1].Source.Quote == p.quote(sp).Quote && argListRE.MatchString(before)
				if m == nil && !listed && !argVerbBefore(before) && !argAfterRE.MatchString(after) || prohibitRE.MatchString(before) {
					continue
				}
				if m != nil {
					raw := p.orig[sp.start+from+m[2] : sp.start+from+m[3]]
					out = append(out, Arg{Name: name, Value: literal(raw), Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}})
					break
				}
				out = append(out, Arg{Name: name, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}})
				break
			}
		}
	}
	return out
}

// argVerbs, before a schema argument (past an article and "argument"),
// ask to set or change it: "narrow start_date", "correct the manifest
// argument", "missing required argument 'order_id'".
var argVerbs = wordSet("set pass provide include add specify supply change fix correct narrow shorten adjust use missing invalid required update right valid different another")

// argSkip are the words between such a verb and the argument's name.
var argSkip = wordSet("the a an your different valid required argument parameter field")

// argVerbBefore reports whether the words just before an argument name
// (before: the text up to it) ask to set or change it.
func argVerbBefore(before string) bool {
	words := strings.Fields(strings.TrimRight(before, "`'\": "))
	for i, skipped := len(words)-1, 0; i >= 0 && skipped <= 2; i-- {
		w := strings.Trim(words[i], "`'\":")
		if argVerbs[w] {
			return true
		}
		if !argSkip[w] {
			return false
		}
		skipped++
	}
	return false
}

func hasArg(args []Arg, name string) bool {
	for _, a := range args {
		if a.Name == name {
			return true
		}
	}
	return false
}

// literal turns an assignment's value into a Go value.
func literal(v string) any {
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	if len(v) >= 2 && strings.ContainsRune("\"'`", rune(v[0])) && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
