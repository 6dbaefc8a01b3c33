package reader

import "strings"

// The argument-hint patterns: what, around a schema argument's name,
// asks the model to set or change it.
var (
	// argAfterRE after a schema argument says it is wrong or needed.
	argAfterRE = re("^[`'\"]?\\s*(?:'[^']*'|\"[^\"]*\"|`[^`]*`)?\\s*:?\\s*(argument|parameter|field|param|required|missing|invalid|" +
		// A requirement: "should not exceed 100", "must be positive", "cannot be blank".
		"should|must|needs? to|has to|cannot|can't|may not|can only|is required|is missing|is invalid|was invalid|is too|" +
		"(is|are) (supplied|provided|given|specified|passed)|exceeds|(is|are) (not|n't) (supported|allowed|valid|recognised|recognized|accepted|permitted)|" +
		"(isn't|aren't) (supported|allowed|valid|recognised|recognized|accepted)|" +
		"(is|are) (outside|not (in|within|inside|under)|in the past|in the future|out of range|negative|empty|blank|malformed|not a valid|not an? \\w+))\\b")
	// assignValueRE reads `: value` or `= value` after an argument name.
	// A number is a bare token too: "5521-8080" is one value, not 5521.
	assignValueRE = re("^[`'\"]?\\s*[:=]\\s*(\"[^\"]*\"|'[^']*'|`[^`]*`|[a-z0-9_.-]+)")
	// argListRE continues a list of arguments: "narrow start_date and
	// end_date".
	argListRE    = re("(\\band|\\bor|,)\\s+(the\\s+)?[`'\"]?$")
	validationRE = re(`^(field required|input should|value error|string should|ensure this|value is not|extra inputs|missing)\b`)
	prohibitRE   = re(`\b(do not|don't|never|avoid|must not|should not|without)\b`)
)

// findArgs reads the schema arguments of the current tool the reply tells
// the model to set or change. A mention counts when the name is marked
// as an argument — quoted or backticked, shaped like an identifier
// (start_date, allowDangerous), or next to "argument", "parameter" or
// "field" — and asked to change: a verb before it ("narrow start_date",
// "set `limit`", "pass it as customer_id"), a requirement after it ("should
// be", "is required"), or a value ("timeout_ms=30000", "format: csv",
// "set locale to en"). A plain English word that happens to be an
// argument's name ("provide a valid address") counts only with a
// change verb before it ("fix the amount"), a requirement after it, or a
// value. A later mention with a value replaces an earlier one without.
// Masked spans (URLs, quoted bodies) were blanked, so a query string never
// yields one; a sentence that sends the model to the user yields none (the
// value is the user's to give).
func findArgs(p *prepared, ctx Context) []Arg {
	params := ctx.Current.Params
	var out []Arg
	for i, sp := range p.sents {
		low := p.low(sp)
		if i > 0 && len(out) < maxArgs {
			out = pronounArgs(p, i, params, out)
		}
		// Pydantic prints a failing field as a line of its own, then the
		// reason: "url\n  Field required [type=missing, …]".
		if i+1 < len(p.sents) && validationRE.MatchString(p.low(p.sents[i+1])) {
			for _, name := range params {
				if low == asciiLower(name) && !hasArg(out, name) && len(out) < maxArgs {
					out = append(out, Arg{Name: name, Evidence: Evidence{Source: p.quote(p.sents[i+1]), Confidence: Tentative}})
				}
			}
		}
		if usersSentence(low) {
			continue // the user gives it; the model does not choose it
		}
		for _, name := range params {
			if name == "" || len(out) >= maxArgs {
				continue
			}
			if k := argIndex(out, name); k >= 0 && out[k].Value != nil {
				continue
			}
			if !p.has(i, []string{asciiLower(name)}) {
				continue // one look-up, where most names are absent
			}
			if a, ok := argMention(p, i, low, name, out); ok && !forOtherTool(low, a, name, ctx) {
				if k := argIndex(out, name); k >= 0 {
					if a.Value != nil {
						out[k] = a
					}
					continue
				}
				out = append(out, a)
			}
		}
		if len(out) < maxArgs {
			out = headNounArgs(p, sp, low, params, out)
		}
		if len(out) < maxArgs && strings.Contains(low, "did you mean") {
			out = didYouMeanArg(p, i, params, out)
		}
		if len(out) < maxArgs {
			out = requirementArgs(p, i, params, out)
		}
		if len(out) < maxArgs && p.has(i, choicesNeed) {
			out = choicesArgs(p, sp, low, params, out)
			out = listedArgs(p, sp, low, params, out)
		}
	}
	return dropUsersArgs(p, out)
}

// didYouMeanRE is the suggestion of a validator: "Did you mean 'fedex'?".
var didYouMeanRE = re("\\bdid you mean:?\\s*['\"`]([^'\"`\\s]{1,64})['\"`]\\s*\\?")

// didYouMeanArg reads "Unknown carrier 'fedx'. Did you mean 'fedex'?":
// the one value suggested for the argument the reply named with the
// wrong value, in the same sentence or the one before.
func didYouMeanArg(p *prepared, si int, params []string, out []Arg) []Arg {
	low := p.low(p.sents[si])
	m := didYouMeanRE.FindStringSubmatchIndex(low)
	if m == nil {
		return out
	}
	sp := p.sents[si]
	value := p.orig[sp.start+m[2] : sp.start+m[3]]
	ctxt := low[:m[0]]
	if si > 0 {
		ctxt = p.low(p.sents[si-1]) + " " + ctxt
	}
	for _, name := range params {
		ln := asciiLower(name)
		for pos := range wordsAt(ctxt, ln) {
			// The name, then its wrong value quoted right after it.
			rest := strings.TrimLeft(ctxt[pos+len(ln):], " :=")
			if rest == "" || strings.IndexByte("'\"`", rest[0]) < 0 {
				continue
			}
			a := Arg{Name: name, Value: value, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}}
			if k := argIndex(out, name); k >= 0 {
				if out[k].Value == nil {
					out[k] = a // the suggestion gives the one the sentence before asked for
				}
				return out
			}
			return append(out, a)
		}
	}
	return out
}

// argMention reads the mentions of one argument name in one sentence and
// returns the best: one with a value, else one without.
func argMention(p *prepared, si int, low, name string, found []Arg) (Arg, bool) {
	sp := p.sents[si]
	ps := p.sentPairSet(si) // the sentence's index also rules needles out of any part of it
	ln := asciiLower(name)
	plain := plainWord(name)
	var best Arg
	ok := false
	for pos := range wordsAt(low, ln) {
		from := pos + len(ln)
		before, after := low[max(0, pos-60):pos], low[from:min(len(low), from+60)]
		if hasAnyIn(ps, before, prohibitNeed) && prohibitRE.MatchString(before) {
			continue
		}
		quoted := pos > 0 && strings.IndexByte("`'\"", low[pos-1]) >= 0
		if strings.HasSuffix(before, "--") {
			before, quoted = before[:len(before)-2], true // a flag, "--resource-group", is marked
		}
		marked := quoted || !plain || hasAnyIn(ps, before, argNouns) && argNounRE.MatchString(before) ||
			hasAnyIn(ps, after, argNouns) && argNounAfterRE.MatchString(after)
		v, vok, ranged := argValue(p, sp, low, from, before)
		if vok && (quoted || valueVerbBefore(before)) {
			return Arg{Name: name, Value: v, Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}}, true
		}
		listed := len(found) > 0 && found[len(found)-1].Source.Quote == p.quote(sp).Quote && argListRE.MatchString(before)
		asked := ranged || argAfterRE.MatchString(after) || changeVerbBefore(before) || hasAnyIn(ps, before, addNeed) && addToRE.MatchString(before) ||
			strings.Contains(before, "for") && forArgRE.MatchString(before) ||
			strings.Contains(before, "value") && valueForRE.MatchString(before) ||
			marked && (argVerbBefore(before) || listed || hasAnyIn(ps, before, n(" as ", " in ", " into ")) && passAsRE.MatchString(before))
		if asked && !ok {
			best, ok = Arg{Name: name, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}}, true
		}
	}
	return best, ok
}

// argValue reads a value given right after an argument's name: "= v"
// always; ": v" when v is a literal (number, boolean, quoted) or a bare
// token that ends the clause ("format: csv."), not prose ("'carrier':
// expected one of …"); "to v" after a verb of setting ("set `limit` to
// 1000", "change locale to en").
//
// A bound is no one value: "set `limit` to 1000 or less", "timeout_ms=30000
// or smaller" give a range; ranged reports it (the argument is still
// asked for, without a value).
func argValue(p *prepared, sp span, low string, from int, before string) (v any, ok, ranged bool) {
	after := low[from:min(len(low), from+60)]
	m := assignValueRE.FindStringSubmatchIndex(after)
	if m == nil && strings.Contains(after, " to ") && (setVerbRE.MatchString(before) || setToRE.MatchString(after)) {
		m = toValueRE.FindStringSubmatchIndex(after)
	}
	if m == nil && strings.Contains(after, " as ") && valueVerbBefore(before) {
		m = asValueRE.FindStringSubmatchIndex(after) // "send order_id as 5521-8080"
	}
	if m == nil && strings.Contains(after, " of ") {
		m = ofValueRE.FindStringSubmatchIndex(after)
	}
	if m == nil {
		return nil, false, false
	}
	raw := p.orig[sp.start+from+m[2] : sp.start+from+m[3]]
	rest := after[m[1]:]
	bare := !literalRE.MatchString(asciiLower(raw))
	if bare {
		if nonValues[asciiLower(raw)] {
			return nil, false, false
		}
		eq := strings.Contains(after[:m[2]], "=")
		if !eq && !clauseEndRE.MatchString(rest) {
			return nil, false, false
		}
	}
	if bare {
		raw = strings.TrimRight(raw, ".-")
	}
	if rangeAfterRE.MatchString(rest) || rangeBeforeRE.MatchString(before+after[:m[2]]) {
		return nil, false, true
	}
	return literal(raw), true, false
}

var (
	// argNounRE, argNounAfterRE: the name is called an argument.
	argNounRE = re("\\b(argument|parameter|param|field|option|property|key)s?\\s*:?\\s*[`'\"]?$")
	// valueForRE: "invalid value for 'carrier'".
	valueForRE = re("\\b(invalid|bad|wrong|unknown|unsupported|missing|illegal)\\s+values?\\s+(?:'[^']*'\\s+|\"[^\"]*\"\\s+)?(for|of)\\s+(the\\s+)?[`'\"]?$")
	// forArgRE: a value named for an argument — "use an ISO date for
	// date", "only 'asc' and 'desc' are allowed for sort".
	forArgRE       = re("\\b(use|pass|provide|give|supply|set|choose|pick|enter|allowed|accepted|valid|supported|permitted|expected)\\b[^.;]{0,50}\\bfor\\s+(the\\s+)?[`'\"]?$")
	argNounAfterRE = re("^[`'\"]?\\s*(argument|parameter|param|field|option|property)\\b")
	// passAsRE: "pass it as customer_id", "use that as the cursor",
	// "resend the redaction with one of these as reason_code".
	passAsRE = re("\\b(pass|send|resend|re-send|use|supply|give|provide|set|put)\\s+(\\S+\\s+){1,7}?(as|in|into)\\s+(the\\s+)?[`'\"]?$")
	// addToRE: "add the postcode to the address", "put the suffix in
	// name", "remove the number from body".
	addToRE = re("\\b((add|append|include|put|insert|attach|prepend)\\b[^.;]{0,60}\\s(to|in|into)|(remove|strip|delete|drop|take out|cut)\\b[^.;]{0,40}\\sfrom)\\s+(the\\s+|your\\s+)?[`'\"]?$")
	addNeed = n("add", "append", "include", "put", "insert", "attach", "prepend", "remove", "strip", "delete", "drop", "take out", "cut")
	// asValueRE: a value after "as" ("send order_id as 5521-8080").
	asValueRE = re("^[`'\"]?\\s+as\\s+(\"[^\"]*\"|'[^']*'|`[^`]*`|[a-z0-9_.-]+)")
	// ofValueRE: "with a start_index of 5000".
	ofValueRE = re("^[`'\"]?\\s+of\\s+(-?\\d+(?:\\.\\d+)?|\"[^\"]*\"|'[^']*'|`[^`]*`)")
	// setVerbRE: a verb of setting just before the name, for "to v".
	setVerbRE = re("\\b(set|change|lower|raise|reduce|increase|switch|update|move|shift|bring)\\s+(the\\s+|your\\s+)?[`'\"]?$")
	toValueRE = re("^[`'\"]?\\s+(?:set\\s+|changed\\s+)?to\\s+(\"[^\"]*\"|'[^']*'|`[^`]*`|[a-z0-9_.-]+)")
	setToRE   = re("^[`'\"]?\\s+(set|changed) to\\s")
	literalRE = re("^(\"[^\"]*\"|'[^']*'|`[^`]*`|true|false|null|-?\\d+(?:\\.\\d+)?)$")
	// clauseEndRE: a bare value ends its clause.
	clauseEndRE = re("^\\s*([.,;)]|$|\\s+(instead|or|and|please)\\b)")
	// rangeAfterRE, rangeBeforeRE: a value given as a bound.
	rangeAfterRE  = re("^[`'\"]?\\s*(or (less|fewer|smaller|lower|below|under|more|greater|higher|larger|above|over|earlier|later)|and (below|under|above|over)|at (most|the most|least))\\b")
	rangeBeforeRE = re("\\b(at most|at least|up to|no more than|not more than|no less than|maximum( of)?|minimum( of)?|under|below|above|over)\\s*[`'\"]?\\s*$")
	prohibitNeed  = n("not", "n't", "never", "avoid", "without")
	argNouns      = n("argument", "parameter", "param", "field", "option", "propert", "key")
	nonValues     = wordSet("a an the some any another one something at less more be is are was must should expected required missing invalid not none")
)

// valueVerbs, within three words before an argument given a value, ask
// for that value: "set force: true", "pass timeout_ms=30000", "retry
// with skip_validation=true", "use format=csv". Without one (or quotes
// around the name), "name: value" restates the request ("no shipment for
// order_id: A-1001") rather than asking for a value.
var valueVerbs = wordSet("set pass use using with specify provide supply add include change try send give " +
	"setting passing sending giving providing specifying supplying adding including changing trying")

func valueVerbBefore(before string) bool {
	words := strings.Fields(before)
	for i := len(words) - 1; i >= 0 && i >= len(words)-3; i-- {
		if valueVerbs[strings.Trim(words[i], "`'\":,(")] {
			return true
		}
	}
	return false
}

// plainWord reports whether an argument name is an ordinary lower-case
// word (amount, address), which prose uses without meaning the argument.
func plainWord(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] < 'a' || name[i] > 'z' {
			return false
		}
	}
	return name != ""
}

// changeVerbs, before an argument name, ask to change its value whether
// or not the name is marked: "fix the amount", "narrow the query".
// An adjective of choice right before the name does too: "find the
// right SKU", "a different carrier".
var changeVerbs = wordSet("fix correct change narrow shorten adjust lower raise reduce increase bump right different another valid " +
	"invalid wrong bad incorrect malformed unsupported unrecognised unrecognized specify supply choose pick select " +
	"smaller larger bigger shorter longer lower higher earlier later fewer narrower broader wider shrink widen extend trim")

// changeVerbBefore reports a change verb within two words before a name.
func changeVerbBefore(before string) bool {
	words := strings.Fields(strings.TrimRight(before, "`'\": "))
	for i, skipped := len(words)-1, 0; i >= 0 && skipped <= 2; i-- {
		w := strings.Trim(words[i], "`'\":")
		if changeVerbs[w] {
			return true
		}
		if !argSkip[w] {
			return false
		}
		skipped++
	}
	return false
}

// argVerbs, before a schema argument (past an article and "argument"),
// ask to set or change it: "narrow start_date", "correct the manifest
// argument", "missing required argument 'order_id'".
var argVerbs = wordSet("set pass provide include add specify supply change fix correct narrow shorten adjust use missing invalid required update right valid different another expected parse interpret validate move shift bring")

// argSkip are the words between such a verb and the argument's name.
var argSkip = wordSet("the a an your different valid required argument parameter field arguments parameters fields option options")

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

// A change verb with a pronoun for its object — "Swap them and call
// again", "fix it" — refers back to the arguments the sentence before
// named.
var (
	pronounChangeVerbs = wordSet("swap fix correct change adjust narrow shorten reduce lower raise update reverse reorder")
	pronouns           = wordSet("them it both these those")
)

// choicesRE: a key: value line that lists the values allowed after the
// one given — "command: remote_start, supported: [lock_doors, horn]",
// "format=xml allowed: csv, json".
var (
	choicesRE   = re(`^\s*[:=]\s*\S+?[,;]?\s+(supported|allowed|valid|accepted|expected)( values| options| commands| formats)?\s*[:=]`)
	choicesNeed = n("supported", "allowed", "valid", "accepted", "expected", "available", "existing", "known")
	// listedRE lists the values of an argument it names, singular or
	// plural: "Available schemas: billing, public", "valid regions are:
	// …". The model is to pick one of them: no one value.
	listedRE = re(`\b(available|valid|supported|allowed|accepted|existing|known) ([a-z][a-z0-9_]*?)(s|es)?( are| is| include)?\s*:`)
)

// listedArgs reads an argument whose allowed values the reply lists
// under its name (listedRE).
func listedArgs(p *prepared, sp span, low string, params []string, out []Arg) []Arg {
	for _, m := range listedRE.FindAllStringSubmatch(low, 4) {
		for _, name := range params {
			if asciiLower(name) == m[2] && !hasArg(out, name) && len(out) < maxArgs {
				out = append(out, Arg{Name: name, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}})
			}
		}
	}
	return out
}

// choicesArgs reads an argument whose given value is followed by the
// values allowed for it: the model is to pick another, no one value.
func choicesArgs(p *prepared, sp span, low string, params []string, out []Arg) []Arg {
	for _, name := range params {
		if hasArg(out, name) || len(out) >= maxArgs {
			continue
		}
		ln := asciiLower(name)
		for pos := range wordsAt(low, ln) {
			if choicesRE.MatchString(low[pos+len(ln) : min(len(low), pos+len(ln)+80)]) {
				out = append(out, Arg{Name: name, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}})
				break
			}
		}
	}
	return out
}
