package reader

import (
	"strconv"
)

// What an English lookup result states, sentence by sentence (quoted
// text, URLs and embedded JSON are blanked first, as for guidance):
//   - nothing matched: "No shipment exists for order A-1001", "No matches
//     found", "not found", "does not exist", "there are no …", "0
//     results", "found nothing", or a result that is only "none";
//   - items: a count above zero ("has 1 shipment(s)", "Found 3 results",
//     "2 matches", "Total: 4"), a statement that they exist ("These
//     shipments exist"), or lines that are list items ("- S-1", "1. S-1",
//     "#812 …"), the last read tentatively.
//
// A result stating both (a listing that also says something was not
// found) is unread: which one answers the lookup is a guess.
var (
	nothingRE = re(`\b(?:no|zero)\s+(?:[\w-]+\s+){0,4}?(?:found|exists?|match(?:es|ed|ing)?|results?|records?|items?|entries|rows?|hits|yet)\b` +
		`|\bnot (?:been )?found\b|\bdo(?:es)?(?:n't| not) exist\b|\bthere (?:are|were) no\b` +
		`|\bthere (?:is|was) no\s+(?:[\w-]+\s+){1,2}?(?:for|with|matching|named|in|yet)\b` +
		`|\bnothing (?:was )?(?:found|match(?:es|ed))\b|\b(?:found|returned) (?:no|nothing)\b`)
	onlyNoneRE = re(`^\W*(?:none|empty|no results?|nothing)\W*$`)
	// resultCountRE: a count of results; group 1 is the number.
	resultCountRE = re(`\b(\d+)\s+(?:[\w-]+\s+){0,2}?(?:results?|match(?:es)?|items?|records?|entr(?:y|ies)|rows?|hits|[a-z_-]+\(s\))(?:\W|$)` +
		`|\b(?:found|returned|has|have|contains?)\s+(\d+)\b|\btotal\W{0,3}(\d+)\b`)
	existsRE   = re(`\bexists?\b`)
	listItemRE = re(`^(?:[-*]\s|\d+[.)]\s|#\d+\b)`)
)

// lookupText reads an English result; another language is unread.
func lookupText(text string) Lookup {
	p := prepare(text)
	if !p.english {
		return Lookup{}
	}
	var found, nothing Lookup
	for _, sp := range p.sents {
		low := p.low(sp)
		if nothing.State == LookupUnread {
			switch {
			case nothingRE.MatchString(low):
				nothing = Lookup{State: LookupNothing, Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}}
			case onlyNoneRE.MatchString(low):
				nothing = Lookup{State: LookupNothing, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}}
			}
		}
		if c := foundIn(low); c > found.Confidence {
			found = Lookup{State: LookupFound, Evidence: Evidence{Source: p.quote(sp), Confidence: c}}
		} else if n, ok := countIn(low); ok && n == 0 && nothing.State == LookupUnread {
			nothing = Lookup{State: LookupNothing, Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}}
		}
	}
	switch {
	case found.State != LookupUnread && nothing.State != LookupUnread:
		return Lookup{}
	case found.State != LookupUnread:
		return found
	}
	return nothing
}

// foundIn is how firmly sentence low states that items were found: a
// count above zero or a statement that they exist (confident), a list
// item (tentative), or nothing (0).
func foundIn(low string) Confidence {
	if n, ok := countIn(low); ok && n > 0 {
		return Confident
	}
	for _, loc := range existsRE.FindAllStringIndex(low, 4) {
		if !negated(low[:loc[0]]) && !nothingRE.MatchString(low) {
			return Confident
		}
	}
	if listItemRE.MatchString(low) {
		return Tentative
	}
	return 0
}

// countIn returns the first count of results sentence low states.
func countIn(low string) (int, bool) {
	m := resultCountRE.FindStringSubmatch(low)
	for _, g := range m[min(1, len(m)):] {
		if g == "" {
			continue
		}
		n, err := strconv.Atoi(g)
		return n, err == nil
	}
	return 0, false
}
