package reader

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	// nextVerbRE must end the text before a tool name for the name to be
	// a next action: "call list_charges", "look it up with list_charges",
	// "check get_order", "reachable through get_archived_project".
	nextVerbRE = re("\\b(call|calling|use|using|run|invoke|invoking|query|try|then|via|see|consult|check|checking|through|with|" +
		"look (it |them |this )?up( with| in| using| via)?|look for (it|them|\\w+) (with|in|using|via)|find (it|them) (with|in|using|via)|" +
		"(verify|confirm) (it |this |them )?(with|using|via|in))\\s+(the\\s+)?(tool\\s+)?[`'\"*]*$")
	// listVerbRE continues a list after a tool already found: "use
	// find_shipments or get_shipment".
	listVerbRE = re("(\\bor|\\band|,)\\s+(then\\s+)?(the\\s+)?[`'\"*]*$")
)

// findNext returns the listed tools the reply names as a next action, in
// order of first appearance. The current tool is never a next action: a
// call of it again is retry guidance or an argument change.
func findNext(p *prepared, ctx Context) NextAction {
	var out NextAction
	seen := map[string]bool{}
	for _, sp := range p.sents {
		low := p.low(sp)
		found := false
		for _, t := range ctx.Tools {
			if t.Name == "" || t.Name == ctx.Current.Name || seen[t.Name] {
				continue
			}
			name := asciiLower(t.Name)
			for from := 0; from < len(low); {
				i := strings.Index(low[from:], name)
				if i < 0 {
					break
				}
				pos := from + i
				from = pos + len(name)
				if !wordAt(low, pos, pos+len(name)) {
					continue
				}
				before := low[max(0, pos-80):pos]
				loc := nextVerbRE.FindStringIndex(before)
				if loc == nil && found {
					loc = listVerbRE.FindStringIndex(before)
				}
				if loc == nil || negated(before[:loc[0]]) {
					continue
				}
				found = true
				seen[t.Name] = true
				if len(out.Tools) == 0 {
					out.Evidence = Evidence{Source: p.quote(sp), Confidence: Confident}
				}
				if len(out.Tools) < maxTools {
					out.Tools = append(out.Tools, t.Name)
				}
				break
			}
		}
		if found && len(out.Tools) > 1 {
			sortByPos(low, out.Tools)
		}
	}
	return out
}

// sortByPos orders the tools found in one sentence by position, keeping
// earlier sentences' tools first; lists are short.
func sortByPos(low string, tools []string) {
	pos := func(n string) int {
		i := strings.Index(low, asciiLower(n))
		if i < 0 {
			return -1
		}
		return i
	}
	for i := 1; i < len(tools); i++ {
		for j := i; j > 0 && pos(tools[j-1]) >= 0 && pos(tools[j]) >= 0 && pos(tools[j]) < pos(tools[j-1]); j-- {
			tools[j], tools[j-1] = tools[j-1], tools[j]
		}
	}
}

var userRE = re(`\b(tell|ask|inform|notify|warn|let|alert|check with|confirm with|report (this |it |that |the \w+ )?to)\s+(the\s+)?(user|customer|human|caller|requester|account owner|end user)\b` +
	`|\bwith the (user|customer)\b|\b(the )?(user|customer) (ought to|should|must|needs to|has to) (be )?(informed|told|asked|notified|confirm|decide)\b|\bstop and report\b|\blet (them|the user) know\b`)

// findUser reads an instruction to tell or ask the user.
func findUser(p *prepared) Flag {
	for _, sp := range p.sents {
		low := p.low(sp)
		if !strings.Contains(low, "user") && !strings.Contains(low, "customer") && !strings.Contains(low, "report") &&
			!strings.Contains(low, "human") && !strings.Contains(low, "caller") && !strings.Contains(low, "know") {
			continue
		}
		if m := userRE.FindStringIndex(low); m != nil && !negated(low[:m[0]]) {
			return Flag{Set: true, Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}}
		}
	}
	return Flag{}
}

var (
	// argVerbRE before a schema argument asks to set or change it.
	argVerbRE = re("\\b(set|pass|provide|include|add|specify|supply|change|fix|correct|narrow|shorten|adjust|use|missing|invalid|required|update|right|valid|different|another)\\s+(the\\s+|an?\\s+|your\\s+|a different\\s+|a valid\\s+|required\\s+)?(argument\\s+|parameter\\s+|field\\s+)?[`'\"]?$")
	// argAfterRE after a schema argument says it is wrong or needed.
	argAfterRE = re("^[`'\"]?\\s*(argument|parameter|field|param|should be|must be|is required|is missing|is invalid|was invalid|is too|must not|cannot be|has to be|needs to be)\\b")
	// assignValueRE reads `: value` or `= value` after an argument name.
	assignValueRE = re("^[`'\"]?\\s*[:=]\\s*(\"[^\"]*\"|'[^']*'|`[^`]*`|true|false|null|-?\\d+(?:\\.\\d+)?\\b|[a-z0-9_.-]+)")
	// argListRE continues a list of arguments: "narrow start_date and
	// end_date".
	argListRE  = re("(\\band|\\bor|,)\\s+(the\\s+)?[`'\"]?$")
	prohibitRE = re(`\b(do not|don't|never|avoid|must not|should not|without)\b`)
)

// findArgs reads the schema arguments of the current tool the reply tells
// the model to set or change: an argument named after a verb that asks
// for a change ("narrow start_date", "the ledger argument", "missing
// required argument 'order_id'", "set force: true"). Masked spans (URLs,
// quoted bodies) were blanked, so a query string never yields one.
func findArgs(p *prepared, params []string) []Arg {
	var out []Arg
	for _, sp := range p.sents {
		low := p.low(sp)
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
				if prohibitRE.MatchString(before) {
					continue
				}
				if m := assignValueRE.FindStringSubmatchIndex(after); m != nil {
					raw := p.orig[sp.start+from+m[2] : sp.start+from+m[3]]
					out = append(out, Arg{Name: name, Value: literal(raw), Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}})
					break
				}
				listed := len(out) > 0 && out[len(out)-1].Source.Quote == p.quote(sp).Quote && argListRE.MatchString(before)
				if listed || argVerbRE.MatchString(before) || argAfterRE.MatchString(after) {
					out = append(out, Arg{Name: name, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}})
					break
				}
			}
		}
	}
	return out
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

var (
	// forceRE: an invitation to override a safety check.
	forceRE = re("[`'\"]?\\b(force|override|overwrite|skip_\\w+|bypass_\\w+|ignore_\\w+|no_?verify|unsafe|\\w*dangerous\\w*|\\w*insecure\\w*|allow_duplicates?)\\b[`'\"]?\\s*[:=]\\s*[`'\"]?(true|yes|1)\\b" +
		"|\\b(retry|try (it |this |the call )?again|resubmit|re-?run|resend)\\s+(it\\s+|this\\s+)?(with|using)\\s+(--)?(force|override)\\b|\\s--force\\b")
	retryInviteRE = re(`\b(retry|try (it |this |this call |the call |\S+ )?again|resubmit|resend|call (it|this|\S+) again)\b`)
)

// findUnsafe reads an invitation to an unsafe action: forcing past a
// check; a bare retry of a write the reply says may have happened, with
// no check first; a retry after the reply said the failure is permanent.
func findUnsafe(p *prepared, s *Signals) Flag {
	for _, sp := range p.sents {
		low := p.low(sp)
		for _, m := range forceRE.FindAllStringIndex(low, 4) {
			if !prohibitRE.MatchString(low[max(0, m[0]-80):m[0]]) {
				return Flag{Set: true, Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}}
			}
		}
	}
	unknownRetry := s.Outcome.State == OutcomeUnknown && s.Retry.Kind == RetryUnbounded
	if unknownRetry {
		return Flag{Set: true, Evidence: Evidence{Source: s.Retry.Source, Confidence: Tentative}}
	}
	stop, ok := permanentStop(p)
	if !ok {
		return Flag{}
	}
	for _, sp := range p.sents[stop+1:] {
		low := p.low(sp)
		if condRE.MatchString(low) {
			continue
		}
		for _, m := range retryInviteRE.FindAllStringIndex(low, 4) {
			if negated(low[:m[0]]) || retryChangedRE.MatchString(low[m[1]:]) {
				continue
			}
			return Flag{Set: true, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}}
		}
	}
	return Flag{}
}

var permanentRE = re(`\bpermanent(ly)?\b|\b(will not|won't|cannot|can't|never) succeed\b`)

// permanentStop finds an unconditional sentence calling the failure
// permanent; it returns the sentence's index.
func permanentStop(p *prepared) (int, bool) {
	for i, sp := range p.sents {
		low := p.low(sp)
		if condRE.MatchString(low) {
			continue
		}
		if m := permanentRE.FindStringIndex(low); m != nil && !negated(low[:m[0]]) {
			return i, true
		}
	}
	return 0, false
}

// upstreamRE is a raw upstream or transport failure as text. "EOF" counts
// only as a Go error's tail (": EOF", "unexpected EOF"), not as a word.
var upstreamRE = regexp.MustCompile(`(?i:\b(50[0-4]|52[0-4]) (bad gateway|service unavailable|gateway time-?out|internal server error)\b)` +
	`|(?i:\bconnection (refused|reset( by peer)?|timed out)\b|\bi/o timeout\b|\bcontext deadline exceeded\b)` +
	`|(?i:\bdial (tcp|udp)\b|\bno such host\b|\bbroken pipe\b|\btls handshake timeout\b|\bclient\.timeout exceeded\b)` +
	`|(?i:\bupstream (connect error|request timeout|timed out)\b)` +
	`|\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH)\b|: (unexpected )?EOF\b|\bunexpected EOF\b`)

func findUpstream(text string) Flag {
	m := upstreamRE.FindStringIndex(text)
	if m == nil {
		return Flag{}
	}
	s, e := max(0, m[0]-60), min(len(text), m[1]+60)
	for s > 0 && !isSpace(text[s-1]) && s > m[0]-80 {
		s--
	}
	return Flag{Set: true, Evidence: Evidence{Source: Source{Kind: FromSentence, Quote: clip(bound(text[s:e], e-s), maxQuote)}, Confidence: Tentative}}
}

// asciiLower lower-cases ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// wordAt reports whether s[i:j] is a whole identifier.
func wordAt(s string, i, j int) bool {
	return (i == 0 || !isIdentByte(s[i-1])) && (j >= len(s) || !isIdentByte(s[j]))
}
