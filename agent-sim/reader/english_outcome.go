package reader

import "strings"

// The outcome phrases: what a reply states about whether the write
// happened (docs/reader.md lists them).
var (
	unknownRules = []rule{
		{re(`\b(may|might) or (may|might) not\b`), Confident, false, n("or may not", "or might not")},
		{re(`\b(outcome|result|status|state)\b[^.;]{0,40}?\b(is|was|remains|are) (still |currently |now )?(unknown|unclear|uncertain|indeterminate|not known)\b`), Confident, false, n("unknown", "unclear", "uncertain", "indeterminate", "not known")},
		{re(`\b(outcome|result|status|state) (unknown|unclear|uncertain|indeterminate)\b|\bunknown (outcome|result|state)\b`), Confident, false, n("unknown", "unclear", "uncertain", "indeterminate")},
		{re(`\b(do not|don't|does not|doesn't|did not|didn't) know (whether|if)\b|\bnot sure (whether|if)\b|\bunclear (whether|if)\b|\bno way to (know|tell) (whether|if)\b|\bunknown (whether|if)\b|\b(may|might) not have been\b`), Confident, false, n("know", "not sure", "unclear", "no way", "not have been")},
		{re(`\bwhether\b[^.;]{0,80}?\b(is|are|was|were|has been|have been)\s+(not (yet )?known|unknown|unclear|not known yet|uncertain)\b`), Confident, false, n("whether")},
		{re(`\b(may|might|could) (already |still )?have (been )?(partially )?(created|committed|applied|succeeded|completed|processed|charged|sent|written|saved|booked|gone through|taken effect|gone out|made|posted|executed|placed|delivered|cancelled|canceled|transferred)\b`), Confident, false, n("may have", "might have", "could have", "may already", "might already", "could already", "may still", "might still", "could still")},
		{re(`\b(could not|couldn't|cannot|can't|can not|unable to|was unable to|were unable to) (be )?(confirm|confirmed|verify|verified|determine|determined|tell)\b`), Tentative, false, n("confirm", "verify", "determin", "tell")},
		{re(`\b(accepted|received|took|sent)\b[^.;]{0,60}?\bbut (never|not|did not|didn't|has not|hasn't)\s+(confirmed|confirm|acknowledged|acknowledge|answered|answer|replied|reply)\b|\breply never arrived\b|\bnever (got|received) (a|an|the) (reply|response|answer|confirmation)\b`), Tentative, false, n("but ", "never")},
	}
	notCommittedRules = []rule{
		{re(`\b(was|were|has|have|had|is|are) not (been |yet )?(created|charged|made|applied|delivered|sent|saved|written|processed|debited|booked|posted|cancell?ed|canceled|executed|submitted|placed|transferred|issued|performed|committed|changed|modified|updated|deleted|stored|recorded|imported)\b` +
			`|\b(wasn't|weren't|hasn't been|haven't been) (created|charged|made|applied|delivered|sent|saved|processed|posted|submitted|placed|transferred|issued|committed|changed)\b`), Confident, false, n("was not", "were not", "has not", "have not", "had not", "is not", "are not", "wasn't", "weren't", "hasn't", "haven't")},
		{re(`\b(was|were|has been|have been|got) rolled back\b`), Confident, false, n("rolled back")},
		{re(`\bnothing (was|has been|got|is|were) (\w+ed|made|sent|changed|done|written|taken)\b|\bno (\w+ )?(charges?|changes?|money|funds|amount|shipments?|orders?|payments?|entr(y|ies)|records?|emails?|messages?|refunds?|transfers?) (was|were|has been|have been)\b`), Confident, false, n("nothing", "no ")},
		{re(`\b(was|were|has been|got|have been) (declined|rejected|refused|blocked)\b|\bviolates (a |the )?(unique|foreign key|check|not-null|exclusion) constraint\b|\bcan no longer be\b|\bdefinitely failed\b`), Tentative, false, n("declined", "rejected", "refused", "blocked", "violates", "no longer", "definitely failed")},
		{re(`^(the |your )?[a-z_ -]{1,40}?\b(failed|has failed|could not be (created|completed|processed|sent))\.?$`), Tentative, false, n("fail")},
	}
	committedRules = []rule{
		{re(`\b(was|were|has been|have been) (successfully )?(issued|sent|created|charged|applied|processed|delivered|committed|completed|posted|booked|saved|recorded|placed|submitted|refunded|transferred)\b`), Tentative, true, n("was ", "were ", "has been", "have been")},
	}
	requestWordRE = re(`\b(request|requests|call|query|reply|response)\s+$`)
)

// findOutcome reads what the reply states about the write: unknown wins
// over not committed, not committed over committed. Conditional clauses
// ("if it lists no shipment, …") state nothing.
func findOutcome(p *prepared) Outcome {
	var unknown, notC, comm Outcome
	for _, sp := range p.sents {
		low := p.low(sp)
		if condRE.MatchString(low) || strings.Contains(low, "unknown error") {
			continue
		}
		ev := Evidence{Source: p.quote(sp)}
		if unknown.State == "" {
			if m, c := first(low, unknownRules); m != nil {
				ev.Confidence = c
				unknown = Outcome{State: OutcomeUnknown, Evidence: ev}
			}
		}
		if unknown.State != "" {
			break // nothing below unknown can win
		}
		if notC.State == "" {
			if m, c := first(low, notCommittedRules); m != nil {
				ev.Confidence = c
				notC = Outcome{State: OutcomeNotCommitted, Evidence: ev}
			}
		}
		if comm.State == "" && notC.State == "" {
			if m, c := first(low, committedRules); m != nil && !requestWordRE.MatchString(low[:m[0]]) {
				ev.Confidence = c
				comm = Outcome{State: OutcomeCommitted, Evidence: ev}
			}
		}
	}
	for _, o := range []Outcome{unknown, notC, comm} {
		if o.State != "" {
			return o
		}
	}
	return Outcome{}
}
