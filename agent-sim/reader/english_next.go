package reader

import (
	"strings"
)

var (
	// nextVerbRE must end the text before a tool name for the name to be
	// a next action: "call list_charges", "look it up with list_charges",
	// "check get_order", "reachable through get_archived_project".
	nextVerbRE = re("\\b(call|calling|use|using|run|invoke|invoking|query|try|then|via|see|consult|check|checking|through|with|" +
		"look (it |them |this )?up( with| in| using| via)?|look for (it|them|\\w+) (with|in|using|via)|look (at|in|through)|(peek|glance|have a look|take a look) (at|in)|search|inspect|find (it|them) (with|in|using|via)|" +
		"(verify|confirm) (it |this |them )?(with|using|via|in)|wait (until|for)|" +
		"(pick|choose|select|get|take|fetch|find) [^.;]{0,30}?(from|in)|(listed|returned|shown|available) (by|from|in|via))\\s+(the\\s+)?(tool\\s+)?[`'\"*]*$")
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
	shorts := shortNames(ctx)
	for si, sp := range p.sents {
		low := p.low(sp)
		found := false
		for _, t := range ctx.Tools {
			if t.Name == "" || t.Name == ctx.Current.Name || seen[t.Name] {
				continue
			}
			for _, name := range []string{asciiLower(t.Name), shorts[t.Name]} {
				if name == "" || seen[t.Name] {
					continue
				}
				found = findNamed(p, si, low, name, found, t.Name, seen, &out) || found
			}
		}
		if found && len(out.Tools) > 1 {
			sortByPos(low, out.Tools)
		}
	}
	if len(out.Tools) == 0 {
		out = nextByWords(p, ctx)
	}
	return out
}

// shortNames are the listed tools' names without a namespace prefix, where
// that is unambiguous: "list-resources" for pulumi-registry-list-resources
// ("You can call list-resources"), the last two parts of a name of three
// or more, when no other listed tool ends the same way.
func shortNames(ctx Context) map[string]string {
	var out map[string]string
	count := map[string]int{}
	short := func(name string) string {
		n := asciiLower(name)
		sep := "-"
		if strings.Count(n, "_") > strings.Count(n, "-") {
			sep = "_"
		}
		parts := strings.Split(n, sep)
		if len(parts) < 3 {
			return ""
		}
		return strings.Join(parts[len(parts)-2:], sep)
	}
	for _, t := range ctx.Tools {
		if s := short(t.Name); s != "" {
			count[s]++
		}
	}
	for _, t := range ctx.Tools {
		if s := short(t.Name); s != "" && count[s] == 1 && t.Name != ctx.Current.Name {
			if out == nil {
				out = map[string]string{}
			}
			out[t.Name] = s
		}
	}
	return out
}

// findNamed looks for name (tool's name or short name) in sentence si as
// a next action, and records tool in out when found.
func findNamed(p *prepared, si int, low, name string, found bool, tool string, seen map[string]bool, out *NextAction) bool {
	sp := p.sents[si]
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
		if !namedAsNext(p.tokens(si), pos) {
			// The token rules did not take it; the verbs before
			// it may still name it ("look it up with X").
			before := low[max(0, pos-48):pos]
			loc := nextVerbRE.FindStringIndex(before)
			if loc == nil && found {
				loc = listVerbRE.FindStringIndex(before)
			}
			if loc == nil || negated(before[:loc[0]]) || needlessRE.MatchString(clauseTail(before[:loc[0]])) {
				continue
			}
		}
		seen[tool] = true
		if len(out.Tools) == 0 {
			out.Evidence = Evidence{Source: p.quote(sp), Confidence: Confident}
		}
		if len(out.Tools) < maxTools {
			out.Tools = append(out.Tools, tool)
		}
		return true
	}
	return false
}

// namedAsNext reports whether the listed tool whose name starts at byte
// pos of the sentence is named as a next action by the clause around it,
// beyond the verbs nextVerbRE knows: an action verb earlier in its clause
// ("it should be checked against list_bookings", "pick one from
// search_rooms"); "the X tool" ("can be handled by the
// "browser_handle_dialog" tool"); or the tool as the subject of a verb of
// showing ("get_transfer will show its real state"); the last two only for
// a name no English word shares (quoted, or with '_', '-' or digits). A
// prohibition before
// it ("do not call X", "never use X", "instead of X") cancels it.
func namedAsNext(s *sentence, pos int) bool {
	i := -1
	for k, t := range s.toks {
		if t.start == pos {
			i = k
			break
		}
	}
	if i < 0 {
		return false
	}
	if s.clauseOf(i).cond {
		// "If list_bookings shows nothing, …": only as the subject of a
		// verb of showing, which makes the condition a check.
		return !plainWord(s.toks[i].w) && i+1 < len(s.toks) && reportVerbs[s.toks[i+1].w] || s.passiveUse(i)
	}
	switch s.w(i - 1) {
	case "next", "step", "action", "alternatively", "instead":
		// "next: get_order", "Next step: run `search_tickets`".
		return true
	}
	for j := i - 1; j >= 0 && j >= i-3 && s.sameClause(i, j); j-- {
		if w := s.toks[j].w; prohibitors[w] || w == "without" && !checkVerbs[s.w(j+1)] || w == "instead" || w == "avoid" {
			return false
		}
	}
	if s.w(i+1) == "tool" {
		return true
	}
	if plainWord(s.toks[i].w) && !s.toks[i].quoted {
		// A tool named like an English word ("connect", "find") is that
		// word here: "to connect to a different instance".
		return false
	}
	c := s.clauseOf(i)
	for j := c.from; j < i; j++ {
		// "without checking list_charges first" still names the check.
		if actionVerbs[s.toks[j].w] && (!s.negatedAt(j, 3) || s.w(j-1) == "without" && checkVerbs[s.toks[j].w]) {
			return true
		}
	}
	for j := i + 1; j < len(s.toks) && j <= i+6 && s.sameClause(i, j); j++ {
		prev := s.toks[j-1].w
		if prev == "also" || prev == "then" || prev == "still" {
			prev = s.w(j - 2) // "search_availability will also show …"
		}
		if reportVerbs[s.toks[j].w] && (prev == "will" || prev == "can" || hasSuffix(s.toks[j].w, "s") || j == i+1) {
			return true
		}
	}
	// The tool as the subject of a passive order: "list_leave_requests
	// should be consulted before any resubmission".
	if s.passiveUse(i) {
		return true
	}
	// A sentence that opens with the tool and its operand is an order in
	// a terse reply: "get_sample S-24-08830 for the label data."
	return i == 0 && len(s.toks) > 2 && !toolSubjectWords[s.w(1)] && !reportVerbs[s.w(1)]
}

// passiveUse reports the tool at i as the subject of a passive order or
// condition: "X should be consulted", "until X has been checked".
func (s *sentence) passiveUse(i int) bool {
	return (s.w(i+1) == "should" || s.w(i+1) == "must") && s.w(i+2) == "be" && passiveUseWords[s.w(i+3)] ||
		(s.w(i+1) == "has" || s.w(i+1) == "have") && s.w(i+2) == "been" && passiveUseWords[s.w(i+3)]
}

// passiveUseWords: what a tool "should be" in a passive order.
var passiveUseWords = wordSet("consulted checked queried used called run invoked read inspected")

// toolSubjectWords after a tool's name make it the subject of a
// statement ("get_sample failed", "list_orders is slow"), not an order.
var toolSubjectWords = wordSet("failed fails failing error errors errored returned returns is was were are has had have timed " +
	"could couldn't can can't cannot will won't would may might must should did didn't does doesn't not also and or " +
	"crashed hung responded answered gave said reported rejected refused denied succeeded worked")

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

var userRE = re(`\b(tell|telling|ask|asking|ping|inform|informing|notify|notifying|warn|warning|let|alert|alerting|offer|(check|confirm|verify|clarify|double-check) (it |this |that |them |these )?with|report (this |it |that |the \w+ )?to)\s+(to\s+)?((the|a|an|your)\s+)?(` + strings.Join(userPeople, "|") + `|(organization|org|workspace|account|project) (admin|administrator|owner)|person who|people who)\b` +
	// Something shown to the user: "present it to the user", "show the
	// options to the user".
	`|\b(present|show|offer|give|explain|relay|pass|read) (\w+ ){1,3}to (the )?(user|customer)\b|\b(give|show|offer|send|tell) (the )?(user|customer) (the|its|their|a|an|both|each|any)\b` +
	`|\b(make sure|confirm|check|verify|ensure) (that )?(the )?(user|customer) (still |really |actually )?(wants|agrees|approves|accepts|is)\b` +
	// Whoever the model works for: "ask the person you are helping", "the
	// teacher you are assisting", "whoever asked".
	`|\b(ask|tell|inform|notify|let|check with|confirm with)\s+(the )?[a-z]+ (you are|you're) (helping|assisting|working (with|for)|acting for)\b|\b(ask|tell|inform|notify) whoever (asked|requested|made the request)\b` +
	// The user's say is needed: "the user's approval", "human review".
	`|\b(user's|customer's|owner's) (approval|consent|confirmation|permission|sign-off|go-ahead|decision)\b|\bhuman (review|approval|decision|sign-off|confirmation)\b` +
	`|\bstop and (tell|inform|notify|alert|escalate to|report to)\b|\bwith the (user|customer)\b|\b(the )?(user|customer) (ought to|should|must|needs to|has to) (be )?(informed|told|asked|notified|confirm|decide)\b|\bstop and report\b|\blet (them|the user) know\b` +
	// The user is the one who must act: "the user must reconnect their
	// account", "escalate to the account owner".
	`|\b(the )?(user|customer|account owner) (must|needs to|has to|will need to|should) (re\w+|[a-z]+ (their|the|a|an|his|her)\b)` +
	`|\bescalate (this |it )?to (the |a )?(user|customer|human|account owner|owner|operator|admin|administrator)\b`)

// findUser reads an instruction to tell or ask the user.
func findUser(p *prepared) Flag {
	if !hasAnyIn(p.pairs, p.lower, userNeed) {
		return Flag{} // one scan of the reply rules most replies out
	}
	for si, sp := range p.sents {
		low := p.low(sp)
		if !p.has(si, userNeed) {
			continue
		}
		if m := userRE.FindStringIndex(low); m != nil && !negated(low[:m[0]]) {
			return Flag{Set: true, Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}}
		}
	}
	return Flag{}
}

// asciiLower lower-cases ASCII letters only, keeping byte offsets:
// strings.ToLower would not ("İ" becomes three bytes), and offsets into
// the lowered text index the original.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
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

// userPeople are who stands for the user in a reply: the user, and the
// person the model acts for in the product's own words (a traveller, a
// signer, the front desk). userRE, userNeed and asksUser read this one
// list.
var userPeople = []string{"user", "users", "customer", "human", "caller", "requester", "account owner", "end user", "owner",
	"admin", "administrator", "traveller", "traveler", "passenger", "guest", "policyholder", "policy holder", "patient",
	"member", "employee", "applicant", "account holder", "cardholder", "buyer", "seller", "merchant", "recipient", "sender",
	"signer", "front desk", "front office", "reception", "operator", "staff", "supervisor", "manager", "rider", "shopper",
	"client", "tenant", "homeowner", "resident", "student", "parent", "guardian", "coordinator"}

// userPerson is userPeople's one-word names, for token rules.
var userPerson = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range userPeople {
		if !strings.Contains(p, " ") {
			m[p] = true
		}
	}
	return m
}()

// userNeed: findUser reads a sentence holding one of these: a person of
// userPeople, or a word of reporting.
var userNeed = append(n("report", "know", "escalate", "helping", "assisting", "whoever", "person", "people", "stop and"), userPeople...)

// needlessRE: the clause says the look-up is not needed: "You don't need to
// look the ticket up with get_ticket".
var needlessRE = re(`\b((don't|do not|doesn't|does not|no) need to|needn't|(not|un)necessary to|no reason to)\b`)

// clauseTail is the text after the last clause break of s.
func clauseTail(s string) string {
	if i := strings.LastIndexAny(s, ",;:"); i >= 0 {
		return s[i+1:]
	}
	return s
}
