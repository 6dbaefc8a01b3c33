package reader

import "strings"

// A step before the repeat: "Stop the container before attempting
// removal", "fetch them with git_fetch and integrate them before pushing
// again", "watch rollout_status before applying further changes". The
// sentence opens with an imperative step and "before" leads to a repeat
// of the call: the repeat waits on the step (after_check).

// stepVerbs are imperatives that put a state right before a repeat.
var stepVerbs = wordSet("stop remove delete fetch pull integrate merge commit stash resolve fix update upgrade install close " +
	"cancel release unlock rebase clear finish complete restart start rename move apply run call use add create " +
	"reconnect sync free drain resume revoke rotate detach unmount")

// stepOpens reports an imperative step opening the clause or the sentence
// before token i (past "please", "first", "then", "you must/should"): a
// check verb (confident) or a step verb (tentative). A negated or
// conditional step is none.
func (s *sentence) stepOpens(i int) Confidence {
	starts := []int{0, s.clauseOf(i).from}
	for _, k := range starts {
		for k < i && (s.toks[k].w == "please" || s.toks[k].w == "first" || s.toks[k].w == "then" || s.toks[k].w == "and" ||
			s.toks[k].w == "you" || s.toks[k].w == "must" || s.toks[k].w == "should" || s.toks[k].w == "need" || s.toks[k].w == "to") {
			k++
		}
		if k >= i || s.clauseOf(k).cond || s.negatedAt(k, 3) {
			continue
		}
		switch w := s.toks[k].w; {
		case checkVerbs[w]:
			return Confident
		case stepVerbs[w]:
			return Tentative
		}
	}
	return 0
}

// repeatAfterBefore reports a repeat of the call within four words after
// "before"/"prior to" at i: any repeat retryAt knows, "attempting" or
// "trying" the call's action ("before attempting removal" for
// remove_container), further writes ("applying further changes"), or the
// called tool's own verb ("before pushing" for push_branch).
func (s *sentence) repeatAfterBefore(i int, cur string) bool {
	verb := toolVerb(cur)
	for j := i + 1; j <= i+4 && j < len(s.toks) && s.sameClause(i, j); j++ {
		w := s.toks[j].w
		if _, ok := s.retryAt(j, cur); ok {
			return true
		}
		switch {
		case w == "attempting" || w == "attempt" || w == "trying":
			return true
		case furtherWords[w] && w != "next" && w != "more" && w != "second" && writeNouns[s.w(j+1)] && s.w(j+1) != "page":
			return true
		case verb != "" && strings.HasPrefix(w, verb):
			return true
		}
	}
	return false
}

// toolVerb is the stem of the verb a tool's name starts with
// ("remove_container" → "remov", "push_branch" → "push"), or "" when the
// name does not start with a write verb.
func toolVerb(name string) string {
	if i := strings.IndexAny(name, "_-."); i > 0 {
		name = name[:i]
	}
	if !baseWrites[name] && !stepVerbs[name] {
		return ""
	}
	name = strings.TrimSuffix(name, "e")
	if len(name) < 3 {
		return ""
	}
	return name
}
