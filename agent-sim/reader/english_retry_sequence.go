package reader

import (
	"slices"
	"strings"
)

// A repeat that follows a step: "Empty it with delete_objects first,
// then run delete_bucket again", "Set start_time to 15:30 and try
// again", "Ask the user to confirm the endpoint, then register it again",
// "Please verify the domain first, after that you can send again". The
// reply allows the repeat only once the step is done, so it is after_check
// (the corpus README: a stated step before trying again). A step that
// only changes the call's own arguments ("set start_time to 15:30 and try
// again", "retry with carrier: dhl") is not one: the reply's guidance is
// the argument (an argument hint), and it says nothing about repeating
// the call unchanged. A delay or a count on the repeat makes it bounded
// instead ("slow down and try again in a minute"), and a prohibition or a
// judgement of futility a stop.

// stepWords are imperatives that do something before the repeat, beyond
// stepVerbs and checkVerbs: put a setting right, ask someone, pick
// another value.
var stepWords = wordSet("empty disable enable set change correct adjust ask grant provide supply choose pick select " +
	"shorten reduce lower increase raise split attach upload approve configure connect authenticate renew free " +
	"archive reauthenticate re-authenticate log sign top unpause unblock whitelist allowlist request obtain " +
	"get generate create regenerate issue verify validate address handle review edit trim replace include omit drop " +
	"specify pass send give tell inform notify contact escalate ping")

// notSteps open a clause without being a step before the repeat: "go
// ahead and try again", "slow down and try again" (a delay), "feel free".
var notSteps = wordSet("go feel slow hold hang just try retry please")

// stepFillers are skipped before a clause's verb: "please", "first",
// "you'll need to", "kindly".
var stepFillers = wordSet("please first then and you must should need to will 'll you'll have kindly simply just so " +
	"now also instead note hint tip ps")

// stepAt reports an imperative step opening the clause that starts at
// token k: the first word past stepFillers is a step (a check verb, a
// step verb, a step word), neither negated nor in a condition. It returns
// the step's token.
func (s *sentence) stepAt(k, before int) (int, bool) {
	for k < before && stepFillers[s.toks[k].w] {
		k++
	}
	if k >= before || s.clauseOf(k).cond || s.negatedAt(k, 3) {
		return 0, false
	}
	w := s.toks[k].w
	if w == "wait" && (s.w(k+1) == "for" || s.w(k+1) == "until") {
		return k, true // "wait for its pipeline to finish, then merge again": a state
	}
	if notSteps[w] || retryVerbs[w] || !(checkVerbs[w] || stepVerbs[w] || stepWords[w] || resolveVerbs[w] || baseWrites[w]) {
		return 0, false
	}
	return k, true
}

// stepThenRepeat reports the repeat at i (ending at end) joined to a step
// earlier in its sentence by "then", "and", "afterwards" or "after that":
// confident after "then", "afterwards", "after that" or with "first" in
// the sentence, tentative after a bare "and". A step whose words name one
// of the called tool's arguments changes the call, not the world, and
// does not count, unless it also names another listed tool ("use
// search_products to find the right SKU, then call add_to_cart with it":
// the look-up is the step).
func (s *sentence) stepThenRepeat(i, end int, names stepNames) Confidence {
	if s.prohibited(i) || s.futile(end) || s.delayAfter(end) || s.waitBefore(i) || s.countAhead(i) > 0 {
		return 0
	}
	i = s.repeatStart(i)
	join := ""
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		w := s.toks[j].w
		if w == "then" || w == "afterwards" || w == "and" || w == "that" && s.w(j-1) == "after" {
			join = w
			break
		}
		if w != "you" && w != "can" && w != "may" && w != "could" && w != "should" && w != "please" && w != "just" && w != "simply" {
			break
		}
	}
	if join != "" {
		for k := 0; k < i; k++ {
			if k != 0 && k != s.clauseOf(k).from {
				continue
			}
			st, ok := s.stepAt(k, i)
			if !ok || s.namesParam(st, i, names.params) && !s.namesParam(st, i, names.tools) {
				continue
			}
			if join == "and" && !s.has("first") {
				return Tentative
			}
			return Confident
		}
	}
	return 0
}

// stepNames are the names a step is read against: the called tool's
// arguments and the other listed tools, lower-cased, and the called
// tool's verb and nouns ("merge", ["pull", "request"]).
type stepNames struct {
	params, tools []string
	verb          string
	nouns         []string
}

// newStepNames builds the names from a reader context.
func newStepNames(ctx Context) stepNames {
	n := stepNames{params: lowerAll(ctx.Current.Params)}
	n.verb, n.nouns, _ = verbNoun(asciiLower(ctx.Current.Name))
	for _, t := range ctx.Tools {
		if t.Name != ctx.Current.Name {
			n.tools = append(n.tools, asciiLower(t.Name))
		}
	}
	return n
}

// namesParam reports one of params among the words from token from to
// token to: "set start_time to …", "add the postcode to the address"
// ("start time" matches start_time too).
func (s *sentence) namesParam(from, to int, params []string) bool {
	if len(params) == 0 || to <= from {
		return false
	}
	seg := s.low[s.toks[from].start:s.toks[to-1].end]
	for _, p := range params {
		if len(p) < 3 {
			continue
		}
		if containsWord(seg, p) || containsWord(seg, replaceUnderscores(p)) {
			return true
		}
	}
	return false
}

// containsWord reports w in s between word boundaries.
func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); {
		k := strings.Index(s[i:], w)
		if k < 0 {
			return false
		}
		k += i
		if (k == 0 || !isWordByte(s[k-1])) && (k+len(w) == len(s) || !isWordByte(s[k+len(w)])) {
			return true
		}
		i = k + 1
	}
	return false
}

// replaceUnderscores spells a schema name as words: "start_time" →
// "start time".
func replaceUnderscores(p string) string {
	return strings.NewReplacer("_", " ", "-", " ").Replace(p)
}

// lowerAll lower-cases names (ASCII).
func lowerAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = asciiLower(n)
	}
	return out
}

// has reports the word w in the sentence.
func (s *sentence) has(w string) bool {
	for _, t := range s.toks {
		if t.w == w {
			return true
		}
	}
	return false
}

// opensWithStep reports a sentence that opens with an imperative step,
// or holds one with "first": what a later "then retry" waits on.
func (s *sentence) opensWithStep() bool {
	if len(s.toks) == 0 {
		return false
	}
	if _, ok := s.stepAt(0, len(s.toks)); ok {
		return true
	}
	if !s.has("first") {
		return false
	}
	for k := range s.toks {
		if k == s.clauseOf(k).from {
			if _, ok := s.stepAt(k, len(s.toks)); ok {
				return true
			}
		}
	}
	return false
}

// thenRepeat reports a repeat at i that opens its sentence or clause
// with "then", "afterwards", "after that" or "once done": the step it
// waits on was asked for in an earlier sentence.
func (s *sentence) thenRepeat(i int) bool {
	i = s.repeatStart(i)
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		switch w := s.toks[j].w; {
		case w == "then" || w == "afterwards" || w == "that" && s.w(j-1) == "after" || w == "done" && s.w(j-1) == "once":
			return true
		case w != "you" && w != "can" && w != "may" && w != "please" && w != "just" && w != "simply" && w != "and":
			return false
		}
	}
	return false
}

// repeatStart is where the repeat at i begins: at the verb before the
// called tool's name ("then call add_to_cart with it" begins at "call").
func (s *sentence) repeatStart(i int) int {
	switch s.w(i - 1) {
	case "call", "calling", "use", "using", "run", "running", "invoke":
		return i - 1
	}
	return i
}

// insteadRepeat reports a write verb with "instead" after it in its
// clause, a repeat with another value once a step is done: "use
// list_pickup_windows to find the next weekday window and book that one
// instead". It returns where it ends.
func (s *sentence) insteadRepeat(i int) (int, bool) {
	if !baseWrites[s.toks[i].w] || i == 0 {
		return 0, false
	}
	for j := i + 1; j <= i+4 && j < len(s.toks) && s.sameClause(i, j); j++ {
		if s.toks[j].w == "instead" {
			return j, true
		}
	}
	return 0, false
}

// onceAfter reports "once" closing the repeat ending at end, not a
// condition: "request it once then", "post it then, once", "resend it
// once".
func (s *sentence) onceAfter(end int) bool {
	j := end + 1
	if s.w(j) == "then" || s.w(j) == "now" {
		j++
	}
	if s.w(j) != "once" {
		return false
	}
	next := s.w(j + 1)
	return !subjectWords[next] && next != "it's" && next != "they're" && next != "you've" && next != "more"
}

// namesUser reports a person of userPeople among the sentence's words.
func (s *sentence) namesUser() bool {
	for _, t := range s.toks {
		if userPerson[t.w] {
			return true
		}
	}
	return false
}

// asksUser reports a sentence that asks the model to ask the user (or an
// owner or admin): their answer is what a later repeat waits on.
func (s *sentence) asksUser() bool {
	for i, t := range s.toks {
		if t.w != "ask" && t.w != "confirm" && t.w != "check" || s.negatedAt(i, 3) {
			continue
		}
		for j := i + 1; j <= i+3 && j < len(s.toks); j++ {
			switch w := s.toks[j].w; {
			case userPerson[w]:
				return true
			case w == "them" || w == "him" || w == "her":
				if j == i+1 && s.namesUser() {
					return true // "show the totals to the user and ask them to approve"
				}
			}
		}
	}
	return false
}

// ownAction reports a repeat of the call in the words of its action
// rather than a retry verb, starting at token i, and where it ends:
//   - the called tool's own verb in its base form or as a gerund ("merge
//     after that" for merge_pull_request, "publishing it" for
//     publish_package), not a participle ("can't be closed" states);
//   - a write verb with the called tool's noun as its object ("publish the
//     post" for create_post, "close the ticket");
//   - a making verb with "new", "another" or "second" before a noun, for a
//     tool that creates ("make a new reservation" for create_booking).
func (s *sentence) ownAction(i int, names stepNames) (int, bool) {
	w := s.toks[i].w
	if names.verb == "" || len(w) < 3 || s.toks[i].quoted {
		return 0, false
	}
	stem := strings.TrimSuffix(names.verb, "e")
	switch {
	case w == names.verb, w == stem+"ing", w == names.verb+"ing", verbSynonyms[w] == names.verb:
		if s.w(i-1) == "be" || s.w(i-1) == "been" || s.w(i-1) == "the" || s.w(i-1) == "a" || s.w(i-1) == "to" && s.w(i-2) == "unable" {
			return 0, false // "the merge", "be close": not the act
		}
		return i, true
	}
	if !actionVerbsOfWrite[w] && !baseWrites[w] {
		return 0, false
	}
	for j := i + 1; j <= i+4 && j < len(s.toks) && s.sameClause(i, j); j++ {
		t := s.toks[j].w
		switch {
		case len(names.nouns) > 0 && (t == names.nouns[len(names.nouns)-1] || t == names.nouns[len(names.nouns)-1]+"s"):
			return j, true
		case (t == "new" || t == "another" || t == "second") && (createVerbs[names.verb] || s.w(j+1) == names.verb):
			// "make a new reservation" for create_booking; "start another
			// transfer" for transfer_prescription.
			if j+1 < len(s.toks) && s.sameClause(j, j+1) {
				return j + 1, true
			}
		case t == "another" && s.w(j+1) == "one" && j+1 < len(s.toks) && s.sameClause(j, j+1):
			// "before you start another one": one more of what the call makes.
			return j + 1, true
		case (t == "it" || t == "them") && j == i+1 && s.toks[i].w != "make" && s.toks[i].w != "open":
			// "request it once then", "post it then": the call's object.
			return j, true
		case betweenVerbNoun[t] || t == "new" || t == "another":
		default:
			return 0, false
		}
	}
	return 0, false
}

// actionVerbsOfWrite are verbs a reply uses for a write besides
// baseWrites: "publish the post", "file the claim", "make the refund".
var actionVerbsOfWrite = wordSet("make publish file open add close merge acknowledge start run resend refund void register " +
	"cancel release approve assign archive restore sign request")

// createVerbs are tool verbs that make something new: a "new" or
// "another" thing made is a repeat of the call.
var createVerbs = wordSet("create make add book place submit file open start schedule register send post publish issue " +
	"request reserve order insert upload")

// verbSynonyms map a verb a reply may use to the tool verb it stands for:
// "buy with the new hold_id" repeats purchase_tickets.
var verbSynonyms = map[string]string{"buy": "purchase", "buying": "purchase", "remove": "delete", "removing": "delete",
	"make": "create", "making": "create", "book": "create", "booking": "create", "pay": "charge", "paying": "charge",
	"resend": "send", "resending": "send", "dispatch": "send", "edit": "update", "editing": "update", "modify": "update",
	"modifying": "update", "change": "update", "changing": "update"}

// stepFirst reports a sentence that orders a step "first" and names one of
// tools (the next actions found): "Run git_pull first", "First, call
// list_projects to find the id".
func stepFirst(p *prepared, tools []string) bool {
	for si, sp := range p.sents {
		low := p.low(sp)
		if !strings.Contains(low, "first") || !slices.ContainsFunc(tools, func(t string) bool { return strings.Contains(low, asciiLower(t)) }) {
			continue
		}
		s := p.tokens(si)
		if !s.has("first") || s.clauses[0].cond {
			continue
		}
		for k := range s.toks {
			if k == 0 || k == s.clauseOf(k).from {
				if _, ok := s.stepAt(k, len(s.toks)); ok {
					return true
				}
			}
		}
	}
	return false
}
