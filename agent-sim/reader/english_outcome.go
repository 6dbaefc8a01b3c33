package reader

import (
	"slices"
	"strings"
)

// The outcome phrases: what a reply states about whether the write
// happened (docs/reader.md lists them).
var (
	unknownRules = []rule{
		// "the door may now be unlocked — or not".
		{re(`\b(may|might|could) (now |still |already )?(be|have been) \w+(ed|en|t)\b[^.;]{0,8}\bor not\b`), Confident, false, n("or not")},
		{re(`\b(may|might) or (may|might) not\b`), Confident, false, n("or may not", "or might not")},
		// A write stated part by part (partialRE).
		{partialRE, Confident, false, partialNeed},
		{partialElidedRE, Confident, false, partialElidedNeed},
		{partialSomeRE, Confident, false, partialSomeNeed},
		// "Refund is maybe done or maybe not", "went through or not".
		{re(`\b(maybe|perhaps|possibly) [a-z]+( [a-z]+)? or (maybe |perhaps |possibly )?not\b`), Confident, false, n(" or maybe not", " or perhaps not", " or possibly not", " or not")},
		{re(`\b(outcome|result|status|state)\b[^.;]{0,40}?\b(is|was|remains|are) (still |currently |now )?(unknown|unclear|uncertain|indeterminate|not known)\b`), Confident, false, n("unknown", "unclear", "uncertain", "indeterminate", "not known")},
		{re(`\b(outcome|result|status|state) (unknown|unclear|uncertain|indeterminate)\b|\bunknown (outcome|result|state)\b`), Confident, false, n("unknown", "unclear", "uncertain", "indeterminate")},
		// "outcome=unknown", "status of refund re_991: indeterminate".
		{re(`\b(outcome|result|status|state)([_-][a-z0-9_-]+)?\b[^.;=:]{0,40}?\s*[=:]\s*(unknown|unclear|uncertain|indeterminate)\b`), Confident, false, n("unknown", "unclear", "uncertain", "indeterminate")},
		// A modal of possibility before a state of existence or completion:
		// "might already be in the mempool", "may already be posted".
		{re(`\b(may|might|could) (already|still|well) (be|exist)\b`), Confident, false, n("already", "still", "well")},
		// "may be pending", "could be in either state".
		{re(`\b(may|might|could) (still |already )?be (pending|in progress|processing|in flight|incomplete|half-done|in either state)\b|\bin either state\b`), Confident, false, n("pending", "progress", "processing", "flight", "incomplete", "half-done", "either state")},
		// "may not have completed", "might not have gone through".
		{re(`\b(may|might|could) not have (\w+ed|gone through|taken effect|gone out|run|begun|finished)\b`), Confident, false, n("not have")},
		// Still in flight: "the payment is still processing".
		{re(`\b(is|are|remains?|was|were) still (pending|processing|in progress|in flight|being processed|running)\b`), Tentative, false, n("still")},
		// "Whether the payment was captured could not be established".
		{re(`\bwhether\b[^.;]{0,80}?\b(could not|couldn't|cannot|can't|can not) be (established|determined|confirmed|verified|known)\b`), Confident, false, n("whether")},
		// A hedge before a done action: "there's a chance the charge went
		// through", "possibly charged".
		{re(`\b(there's a chance|there is a chance|it's possible|it is possible|possibly|perhaps|probably)\b[^.;]{0,40}?\b(\w+ed|went through|gone through|happened|took effect)\b`), Tentative, true, n("chance", "possibl", "perhaps", "probably")},
		// "It is not known whether", "not clear if".
		{re(`\b(not known|not clear|uncertain|not certain|not yet known|undetermined) (whether|if)\b`), Confident, false, n("whether", " if")},
		// Cannot tell whether: "can't tell whether", "unable to say if".
		{re(`\b(can't|cannot|can not|could not|couldn't|unable to|no way to|hard to|impossible to|not possible to) (tell|say|know|determine|confirm|verify|see) (whether|if)\b`), Confident, false, n("whether", " if")},
		// "Was it approved? We don't know, and neither does the bank".
		{re(`\b(we|i) (do not|don't) (yet )?know( yet| for sure| for certain)?\s*([,.;:!]|$)`), Tentative, false, n("know")},
		// "no idea whether the run got queued", "nobody knows if".
		{re(`\b(no idea|no clue|nobody knows|no one knows|none of us knows?) (yet )?(whether|if)\b`), Confident, false, n("whether", " if")},
		// Not confirmed yet: "the bank has not confirmed the transfer yet".
		{re(`\b(has|have|had) not (yet )?(confirmed|acknowledged)\b[^.;]{0,40}\byet\b|\b(not|never) (yet )?(been )?(confirmed|acknowledged) yet\b|\bunconfirmed\b`), Tentative, false, n("confirmed", "acknowledged")},
		{re(`\b(do not|don't|does not|doesn't|did not|didn't) know (yet |for sure |for certain |at this point )?(whether|if)\b|\bnot sure (whether|if)\b|\bunclear (whether|if)\b|\bno way to (know|tell) (whether|if)\b|\bunknown (whether|if)\b|\b(may|might) not have been\b`), Confident, false, n("know", "not sure", "unclear", "no way", "not have been")},
		{re(`\bwhether\b[^.;]{0,80}?\b(is|are|was|were|has been|have been)\s+(not (yet )?known|unknown|unclear|not known yet|uncertain)\b`), Confident, false, n("whether")},
		{re(`\b(may|might|could) (already |still |well )?have (already )?(been )?(partially )?(created|committed|applied|succeeded|completed|processed|charged|sent|written|saved|booked|gone through|taken effect|gone out|made|posted|executed|placed|delivered|cancelled|canceled|transferred|authori[sz]ed|approved|captured|debited|assigned|recorded|registered|submitted|queued|scheduled|dispatched|unlocked|locked|started)\b`), Confident, false, n("may have", "might have", "could have", "may already", "might already", "could already", "may still", "might still", "could still")},
		{re(`\b(could not|couldn't|cannot|can't|can not|unable to|was unable to|were unable to) (be )?(confirm|confirmed|verify|verified|determine|determined|tell)\b`), Tentative, false, n("confirm", "verify", "determin", "tell")},
		{re(`\b(accepted|received|took|sent)\b[^.;]{0,60}?\bbut (never|not|did not|didn't|has not|hasn't)\s+(confirmed|confirm|acknowledged|acknowledge|answered|answer|replied|reply)\b|\breply never arrived\b|\bnever (got|received) (a|an|the) (reply|response|answer|confirmation)\b`), Tentative, false, n("but ", "never")},
	}
	notCommittedRules = []rule{
		{re(`\b(was|were|has|have|had|is|are) not (been |yet )?(created|charged|made|applied|delivered|sent|saved|written|processed|debited|booked|posted|cancell?ed|canceled|executed|submitted|placed|transferred|issued|performed|committed|changed|modified|updated|deleted|stored|recorded|imported|completed|done|paid|refunded|reserved|opened|billed|captured|settled|taken|moved)\b` +
			`|\b(wasn't|weren't|hasn't been|haven't been) (created|charged|made|applied|delivered|sent|saved|processed|posted|submitted|placed|transferred|issued|committed|changed)\b`), Confident, false, n("was not", "were not", "has not", "have not", "had not", "is not", "are not", "wasn't", "weren't", "hasn't", "haven't")},
		{re(`\b(was|were|has been|have been|got) (rolled back|reverted|discarded|aborted)\b`), Confident, false, n("rolled back", "reverted", "discarded", "aborted")},
		// "The file was left unchanged".
		{re(`\b(was|were|is|are|has been|have been|remains?|remained|stays?|stayed) (left )?(unchanged|untouched|unmodified|as it was)\b`), Confident, false, n("unchanged", "untouched", "unmodified", "as it was")},
		// A headline without its auxiliary: "Payment not processed".
		{re(`^(the |your )?[a-z][a-z_ -]{1,30}? not (processed|created|charged|applied|saved|sent|booked|placed|executed|committed|delivered|posted|submitted|reserved|moved|written|stored|recorded|imported|transferred|issued)\b`), Confident, false, n(" not ")},
		// A headline without its auxiliary: "No changes made", "no action
		// taken", "transaction rolled back".
		{re(`^(no|zero|0) (\w+ )?(changes?|action|actions|rows?|records?|charges?|items?|entries|messages?) (made|taken|applied|saved|written|inserted|updated|created|sent|affected)\b|^(the )?(transaction|change|changes|operation|write) (rolled back|reverted|discarded|aborted)\b`), Confident, false, n("made", "taken", "applied", "saved", "written", "inserted", "updated", "created", "sent", "affected", "rolled back", "reverted", "discarded", "aborted")},
		// "could not be booked": the action did not happen.
		{re(`\b(could not|couldn't|cannot|can't|can not|was unable to|were unable to) be (created|booked|charged|processed|saved|sent|delivered|applied|cancell?ed|canceled|completed|placed|reserved|posted|submitted|executed|committed|written|transferred|moved|scheduled|published)\b`), Tentative, false, n(" be ")},
		{re(`\bnothing (was|has been|got|is|were) (\w+ed|made|sent|changed|done|written|taken)\b|\bno (\w+ ){1,2}(was|were|has been|have been|got) (\w+ed|made|sent|moved|opened|taken|done|written|paid|run|begun)\b`), Confident, false, n("nothing", "no ")},
		{re(`\b(was|were|has been|got|have been) (declined|rejected|refused|blocked)\b|\b(rejected|declined|refused) by\b|\bviolates (a |the )?(unique|foreign key|check|not-null|exclusion) constraint\b|\bcan no longer be\b|\bdefinitely failed\b`), Tentative, false, n("declined", "rejected", "refused", "blocked", "violates", "no longer", "definitely failed")},
		// A refusal the store or a guard gave before anything was written:
		// "cannot execute INSERT in a read-only transaction", "the circuit
		// is open and is not allowing calls", "Sending is not possible
		// because …", "Deploy blocked: …". Not a duplicate key: after a
		// lost reply, it is what an earlier attempt's commit looks like.
		{re(`\b(cannot|can't|could not|couldn't) execute (insert|update|delete|upsert|merge|create|drop|alter)\b` +
			`|\bcircuit (breaker )?(is )?(now )?open\b|\bnot allowing (calls|requests)\b|\b[a-z]+ing is not possible\b|^(the |your )?[a-z][a-z_-]{1,30} (blocked|refused|rejected|declined|denied)\s*[:.]`), Tentative, false, n("execute", "circuit", "allowing", "not possible", "blocked", "refused", "rejected", "declined", "denied")},
		{re(`^(the |your )?([a-z_-]+ ){0,3}?(failed|has failed|could not be (created|completed|processed|sent))\.?$`), Tentative, false, n("fail")},
		// "cannot create note because it is a duplicate": the write refused
		// outright (not "could not confirm", which is unknown).
		{re(`\b(cannot|can't|can not) (create|add|send|post|book|charge|save|write|update|delete|submit|place|publish|insert|schedule|transfer|refund|cancel|merge|deploy)\b`), Tentative, false, n("cannot", "can't", "can not")},
		// A labelled flag: "sent: no", "assigned: no", "charged=false".
		{re(`\b(sent|assigned|created|charged|applied|booked|committed|saved|written|dispatched|delivered|processed|executed|published|posted|accepted|placed|scheduled)\s*[:=]\s*(no|false|none|0)\b`), Confident, false, n(": no", ":no", "=no", "false", ": none", ": 0", "=0")},
		// "the thermostat did not receive the new setpoint", "the
		// upstream never received the request".
		{re(`\b(did not|didn't|never|has not|hasn't|have not|haven't) (receive|received|get|got|reach|reached) (the|this|your|our|its|any) (new |updated |)?[a-z]+`), Confident, false, n("receive", " get ", " got ", "reach")},
		// "the payment never got there".
		{re(`\bnever (got|made it|went|gone) (there|through|out|live)\b`), Confident, false, n("never got", "never made", "never went", "never gone")},
		// "did not go through", "didn't happen", "was never created".
		{re(`\b(did not|didn't|never) (go through|went through|happen|happened|take effect|took effect|complete|completed|get (created|charged|sent|saved|applied|processed))\b|\b(was|were|has been|have been) never (\w+ed|made|sent|done|taken|paid)\b`), Confident, false, n("did not", "didn't", "never")},
	}
	committedRules = []rule{
		// "A restore … is already running - it was started by this request".
		{re(`\b(is|are) already (running|in progress|underway|under way|queued|processing|being processed)\b|\bwas started by (this|your|the) (request|call)\b`), Tentative, false, n("already", "started by")},
		// "The charge succeeded", "the transfer went through".
		{re(`\b(succeeded|was successful|were successful|went through|has gone through|completed successfully)\b`), Tentative, true, n("succeeded", "successful", "went through", "gone through")},
		{re(`\bsuccessfully (created|sent|delivered|charged|booked|posted|saved|applied|issued|transferred|placed|submitted|refunded|processed|completed|cancell?ed|deleted|updated)\b`), Tentative, true, n("successfully")},
		// A headline that starts with the participle: "Charged $20 to card
		// ending 4242", "Created issue #42".
		{re(`^(successfully )?(charged|created|sent|issued|refunded|booked|posted|transferred|placed|submitted|deleted|updated|added|captured) \S` +
			// These read as adjectives before a plain noun ("Published
			// versions are immutable"), so only before an id: "published
			// PL-0614".
			`|^(published|registered|recorded|scheduled|assigned|uploaded|saved|stored) [a-z_-]*\d`), Tentative, false, n("charged", "created", "sent", "issued", "refunded", "booked", "posted", "transferred", "placed", "submitted", "deleted", "updated", "added", "captured", "published", "registered", "recorded", "scheduled", "assigned", "uploaded", "saved", "stored")},
		// A headline without its auxiliary: "Email delivered to …".
		{re(`^(the |your )?([a-z0-9_-]+ ){1,2}(created|sent|delivered|charged|booked|posted|saved|applied|issued|transferred|placed|submitted|refunded|added|deleted|updated|captured|billed|debited|paid|settled|filed|registered|recorded|queued)( successfully)?( (to|for|on|at|as|with|in|by)\b|\s*(,|;|:|$)| but\b| however\b|\s+-\s)`), Tentative, true, n("created", "sent", "delivered", "charged", "booked", "posted", "saved", "applied", "issued", "transferred", "placed", "submitted", "refunded", "added", "deleted", "updated", "filed", "registered", "recorded", "queued", "captured", "billed", "debited", "paid", "settled")},
		{re(`\b(was|were|has been|have been) (successfully )?(issued|sent|created|charged|applied|processed|delivered|committed|completed|posted|booked|saved|recorded|placed|submitted|refunded|transferred|captured|billed|debited|paid|settled|executed|reserved|opened|stored|written|queued|enqueued|started|triggered|added|uploaded|attached|filed|registered|scheduled|bought|purchased|published|deployed|merged|provisioned|installed|renewed|imported)\b`), Tentative, true, n("was ", "were ", "has been", "have been")},
		// A state that only a done write leaves: "the pitch is booked for
		// Sat 10:00", "both rooms are reserved".
		{re(`\b(is|are|it's|that's) (now |already )?(booked|reserved|scheduled|assigned|allocated)\b (for|on|at|to)\b`), Tentative, true, n("is ", "are ", "'s ")},
		// A state only a done write leaves, in the present: "the new
		// manager and department are saved", "the registration is done
		// already", "Article art-3391 went live", "landed in WMS".
		{re(`\b(is|are|it's|that's) (now |already )?(saved|stored|recorded|applied|in place|live|done|complete|completed|finished|on file)( already)?\b|\b(went|gone|is now|are now) live\b|\blanded (in|on)\b|\b(went|has gone|have gone) out\b|\b(has|have) gone in\b` +
			// "it's in: LN-2024-0381", "Your reading is in!", "it landed".
			`|\b(it's|it is|[a-z]+ is|they're|they are) in\s*([!:;,.]|$)|\b(it|that|this|the \w+) (has )?landed\b`), Tentative, true, n("saved", "stored", "recorded", "applied", "in place", "live", "done", "complete", "finished", "on file", "landed", "went out", "gone out", "gone in", " in")},
		// The upstream lists it: "bill #1187 does show in the vendor's
		// ledger now", "the booking now appears in the airline's system".
		{re(`\b(does|do|now|already) (show|shows|appear|appears)( up)? (in|on|under)\b|\b(is|are) (now |already )?(visible|listed|present|showing) (in|on|under)\b`), Tentative, false, n("show", "appear", "visible", "listed", "present")},
	}
	// twiceRE after a denial: "not registered twice" denies a duplicate,
	// and so says the first one stands.
	twiceRE    = re(`^\s*(twice|again|a second time|another time|more than once)\b`)
	ownTwiceRE = re(`^((not|\w+n't) )?(been |yet )*\w+ (twice|again|a second time|another time|more than once)\b`)
	// whetherRE: a statement inside "whether …" or "if …" states nothing.
	whetherRE     = re(`\b(whether|if)\b`)
	requestWordRE = re(`\b(request|requests|call|query|reply|response)\s+$`)
	// futureRE: "will be rejected by the bank" foretells; it states
	// nothing about this write.
	futureRE = re(`\b(will|would|'ll)( not)?( be| get)?\s*$`)
)

// partialRE: a write stated part by part — "completed only in part: 4 of
// 6 instances started", "failed halfway: the first two were applied, the
// rest were not", "Transfer: half done", "unpublish partly done",
// "partial_apply". The write as a whole is neither done nor undone: the
// outcome is unknown, and Outcome.Partial says the reply told which part.
var partialRE = re(`\b(partially|partly) (applied|done|completed|complete|written|saved|created|updated|succeeded|processed|sent|delivered|published|unpublished|deleted|removed|started)\b|\b(completed|applied|done|succeeded|worked) only (in part|partly|partially)\b` +
	`|\b(failed|stopped|died) (halfway|half-way|part-way|partway)\b|\bhalf[- ]done\b|\bpartial[_ -]appl(y|ied)\b|\bthe rest (were|was|have|has) not\b` +
	`|\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) of (the )?(\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) [a-z]+( [a-z]+)?( \([^)]{0,80}\))? (were |was |have been |has been )?(applied|started|created|sent|updated|processed|delivered|confirmed|moved|written|saved|deleted|published|added|uploaded|attached|booked|reserved|scheduled|filed|registered|charged|imported|synced)\b|\bapplied[_ ]to:? \d+ of \d+\b` +
	`|\b(accepted|applied|processed|created|sent|updated|imported|uploaded|delivered|lodged|saved|moved|wrote|written|posted|booked|registered|recorded|refunded|allocated|assigned|added|deleted|removed|published|charged|stopped|started) (only )?\d+ of (the )?\d+\b` +
	// A share written as a fraction: "38/50 devices updated".
	`|\b\d+ ?/ ?\d+( [a-z]+( [a-z]+)?)? (were |was |have been |has been )?(applied|started|created|sent|updated|upgraded|processed|delivered|confirmed|moved|written|saved|deleted|published|added|uploaded|imported|synced|migrated|restarted|stopped|rebooted|succeeded|completed|done|booked|posted|recorded|charged|refunded)\b`)

// partialElidedRE: one part done, the other not, the verb elided: "the
// first point is saved on the sensor, the wet point is not".
var partialElidedRE = re(`\b(is|are|was|were|has been|have been) (already )?(saved|done|applied|written|created|sent|stored|updated|recorded|booked|set|uploaded|processed|delivered|committed)\b[^.;]{0,60}, (but |while |whereas )?(the |its |their )?[a-z0-9 _-]{1,40}? (is|are|was|were|has|have) not( yet)?\s*([.;,]|$)`)

var partialElidedNeed = n(" is not", " are not", " was not", " were not", " has not", " have not")

// partialSomeRE: a write stated part by part through a share of it or a
// count of what failed beside what worked — "partial success", "only
// part of the batch was applied", "not all of the messages went out",
// "3 succeeded, 2 failed", "the remaining 40 rows are still queued",
// "2 of 5 files were not uploaded".
var partialSomeRE = re(`\bpartial (success|failure|write|import|update|upload|commit|completion|delivery|sync)\b|\bpartially (successful|failed|complete|completed)\b` +
	`|\b(only )?(some|part|a part|parts|a portion|a subset|not all|several|most) of (the |your |its |their |this |these |those )?([a-z0-9_-]+ ){0,2}?(was|were|has been|have been|got|went|made it|succeeded|failed|did not|didn't|could not|couldn't)\b` +
	`|\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten) ([a-z]+ )?(succeeded|passed|worked|went through|were (applied|created|sent|saved|imported|updated|accepted))\W{0,3}(and |but |while |whereas )?(\d+|one|two|three|four|five|six|seven|eight|nine|ten) ([a-z]+ )?(failed|did not|didn't|were not|errored|were rejected)\b` +
	`|\bthe (rest|remaining|remainder|others|other \d+|last \d+|last (two|three|four|five|six))\b( [a-z0-9_-]+){0,3}? (were|was|are|is|have|has|remain|remains) (not|still|never|left|pending|unprocessed|unsent|untouched)\b|\b(the )?(rest|remainder|others) (failed|did not|didn't|could not|couldn't)\b` +
	`|\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten) of (the )?(\d+|two|three|four|five|six|seven|eight|nine|ten|twelve) ([a-z_-]+ ){1,2}(were|was|have|has|did) (not|never)\b|\b\d+ of (the )?\d+ ([a-z_-]+ ){0,2}(failed|errored|were rejected)\b` +
	// "invitations went out to 4 of the 6 attendees", "the other 5
	// still run 2.14.0", "Broadcast incomplete".
	`|\b(went out|were sent|was sent|were delivered|was delivered|reached|got through|succeeded|was applied|were applied|worked) (to|for|on|in) (only )?(\d+|one|two|three|four|five|six|seven|eight|nine|ten) of (the )?(\d+|two|three|four|five|six|seven|eight|nine|ten|twelve)\b` +
	`|\bthe (other|remaining|last) (\d+|two|three|four|five|six|seven|eight|nine|ten)( [a-z_-]+)? (still|never|did not|didn't|were not|are not|have not|failed)\b` +
	`|^(the |your )?[a-z_-]+( [a-z_-]+)? (is |was |left )?incomplete\b` +
	// Counts as key=value: "booked=2 (D-901,D-902) failed=1".
	"|\\b(succeeded|ok|done|booked|created|sent|written|applied|updated|processed|imported|saved|moved|posted)\\s*[=:]\\s*[1-9]\\d*\\b[^.;]{0,80}?\\bfailed\\s*[=:]\\s*[1-9]")

var partialSomeNeed = n("failed=", "failed:", "failed =", "failed :", "partial", "some of", "part of", "parts of", "portion of", "subset of", "not all", "several of", "most of", "succeeded", "passed", "worked", "went through", "were ", "the rest", "remaining", "remainder", "others", "other ", "last ", " of ", "incomplete")

// partialStated reports a sentence that states a write part by part.
func partialStated(p *prepared, si int) bool {
	low := p.low(p.sents[si])
	return p.has(si, partialNeed) && partialRE.MatchString(low) || p.has(si, partialElidedNeed) && partialElidedRE.MatchString(low) ||
		p.has(si, partialSomeNeed) && partialSomeRE.MatchString(low)
}

var partialNeed = n("partial", "partly", "only in part", "halfway", "half-way", "part-way", "partway", "half done", "half-done", "the rest", " of ", "/")

// findOutcome reads what the reply states about the write. Unknown wins
// over the others. Between committed and not committed, a confident
// statement wins over a tentative one, and otherwise the first one
// stated: in "the refund was issued, but the email could not be sent"
// the write is the refund, and what failed after it is secondary.
// Conditional clauses ("if it lists no shipment, …") state nothing.
func findOutcome(p *prepared, cur string) Outcome {
	o := findOutcomeState(p, cur)
	o.Exists = statesExists(p) || nounExists(p, cur)
	o.Own = o.Exists && tiedToCall(p)
	return o
}

// tiedToRE: what ties an object already there to this call — its
// idempotency key or client token, an earlier attempt of it, or the
// caller owning it ("BucketAlreadyOwnedByYou", "it is ours").
var tiedToRE = re(`\bidempoten|\b(this|the same|your|that) (idempotency |request |client |dedup(lication)? )?(key|token)\b|\bclient[_ ]?token\b|\bdedup(e|lication)?[_ ]key\b` +
	`|\b(your|the|our|my|an?|this call'?s?|the call'?s?) (own )?(previous|earlier|first|last|original|prior|initial) (attempt|request|call|try|submission|put|post|write|run)\b` +
	`|\b(previous|earlier|first|original|prior|initial) (attempt|request|call|try|submission)\b` +
	`|owned ?by ?you|\b(it|they) (is|are|was|were) (ours|yours)\b|\b(it's|it is) (ours|yours)\b|\bbelongs? to (you|this (call|request|account))\b|\bfor this (key|request|call|token)\b`)

// tiedToCall reports a reply that ties what is already there to this
// call. A bare "a Key Value instance named sessions-cache already exists"
// says the name is taken, not that this call's earlier attempt took it:
// someone else's object reads the same.
func tiedToCall(p *prepared) bool {
	return tiedToRE.MatchString(p.full)
}

// nounExistsRE: "<noun> exists", "<noun> is there": the head word is
// checked against the current tool's nouns.
var nounExistsRE = re(`\b([a-z]+) (now |already )?(exists|is there|is in place)\b`)

// nounExists reports a statement that the current tool's object exists
// ("So the bucket exists, it is ours" for create_bucket).
func nounExists(p *prepared, cur string) bool {
	_, nouns, ok := verbNoun(asciiLower(cur))
	if !ok {
		return false
	}
	for _, sp := range p.sents {
		low := p.low(sp)
		if !strings.Contains(low, "exists") && !strings.Contains(low, "is there") && !strings.Contains(low, "in place") || condRE.MatchString(low) {
			continue
		}
		for _, m := range nounExistsRE.FindAllStringSubmatchIndex(low, 4) {
			w := low[m[2]:m[3]]
			if slices.Contains(nouns, w) && !negated(low[:m[0]]) && !whetherRE.MatchString(low[:m[0]]) {
				return true
			}
		}
	}
	return false
}

// alreadyExistsRE: the reply says the thing the write makes is already there —
// "Contact already exists", "has already been registered", "duplicate
// key value violates unique constraint", "an order with this idempotency
// key was already processed".
var alreadyExistsRE = re(`\balready (exists?|been (created|registered|recorded|processed|submitted|booked|placed|made|charged|sent|imported|applied|added|filed|posted|uploaded|paid))\b` +
	`|\b(was|were|is|are|has|have) already (created|registered|recorded|processed|submitted|booked|placed|made|charged|sent|imported|applied|added|filed|posted|uploaded|paid|there|present|on file)\b` +
	`|\bduplicate (key|entry|record|request|submission)\b|\bis a duplicate\b`)

// statesExists reports a statement, not a condition, that what the
// write makes already exists. It reads the text before blanking: an
// upstream's own words ("409 already exists: …", a quoted body's
// "Contact already exists") are no guidance, but they are the upstream
// saying what it holds.
func statesExists(p *prepared) bool {
	low := p.full
	if !strings.Contains(low, "already") && !strings.Contains(low, "duplicate") {
		return false
	}
	for _, m := range alreadyExistsRE.FindAllStringIndex(low, 8) {
		before := low[max(0, m[0]-40):m[0]]
		if i := strings.LastIndexAny(before, ".;\n"); i >= 0 {
			before = before[i+1:]
		}
		if !negated(before) && !whetherRE.MatchString(before) && !condRE.MatchString(strings.TrimSpace(before)) {
			return true
		}
	}
	return false
}

// findOutcomeState reads the stated state (see findOutcome).
func findOutcomeState(p *prepared, cur string) Outcome {
	verb, _, _ := verbNoun(asciiLower(cur))
	var unknown, notC, comm Outcome
	var notAt, commAt int // position of the statement: sentence start + match
	supposed := false     // the last sentence supposed a completion ("Had it been sent, …")
	for si, sp := range p.sents {
		low := p.low(sp)
		ts := p.tokens(si)
		prevSupposed := supposed
		supposed = ts.supposes()
		if condRE.MatchString(low) || strings.Contains(low, "unknown error") {
			continue
		}
		ev := Evidence{Source: p.quote(sp)}
		var co *[3]clauseFind // the clause rules, run only where no phrase decided
		clause := func() *[3]clauseFind {
			if co == nil {
				u, n, c := clauseOutcome(ts, prevSupposed)
				co = &[3]clauseFind{u, n, c}
			}
			return co
		}
		if unknown.State == "" {
			if m, c := p.first(si, unknownRules); m != nil {
				ev.Confidence = c
				unknown = Outcome{State: OutcomeUnknown, Evidence: ev}
			} else if cu := clause()[0]; cu.state != "" {
				ev.Confidence = cu.conf
				unknown = Outcome{State: OutcomeUnknown, Evidence: ev}
			}
		}
		if unknown.State != "" {
			unknown.Partial = partialStated(p, si)
			break // nothing below unknown can win
		}
		if notC.State == "" && verb != "" && strings.Contains(low, "n") && strings.Contains(low, verb[:3]) {
			if at, ok := ts.ownNotDone(verb); ok && !whetherRE.MatchString(low[:at]) && !futureRE.MatchString(low[:at]) && !ownTwiceRE.MatchString(low[at:]) {
				notC, notAt = Outcome{State: OutcomeNotCommitted, Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}}, sp.start+at
			}
		}
		if notC.State == "" {
			if m, c := p.first(si, notCommittedRules); m != nil && !whetherRE.MatchString(low[:m[0]]) && !transportFailure(low[m[0]:m[1]]) &&
				!futureRE.MatchString(low[:m[0]]) && !twiceRE.MatchString(low[m[1]:]) {
				ev.Confidence = c
				notC, notAt = Outcome{State: OutcomeNotCommitted, Evidence: ev}, sp.start+m[0]
			} else if cn := clause()[1]; cn.state != "" && !ownTwiceRE.MatchString(low[cn.at:]) {
				ev.Confidence = cn.conf
				notC, notAt = Outcome{State: OutcomeNotCommitted, Evidence: ev}, sp.start+cn.at
			}
		}
		if comm.State == "" {
			if m, c := p.first(si, committedRules); m != nil && !requestWordRE.MatchString(low[:m[0]]) && !whetherRE.MatchString(low[:m[0]]) {
				ev.Confidence = c
				comm, commAt = Outcome{State: OutcomeCommitted, Evidence: ev}, sp.start+m[0]
			} else if cc := clause()[2]; cc.state != "" {
				ev.Confidence = cc.conf
				comm, commAt = Outcome{State: OutcomeCommitted, Evidence: ev}, sp.start+cc.at
			}
		}
	}
	switch {
	case unknown.State != "":
		return unknown
	case notC.State == "" || comm.State == "":
		if notC.State != "" {
			// "P-101 to P-103 were scanned in; P-104 and P-105 were not
			// moved": a part stated done in a verb no committed rule
			// knows, beside a part not done.
			notC.Partial = partDone(p)
			return notC
		}
		return comm
	}
	// Both stated: one part done, another not. The first or the more
	// confident wins, marked Partial.
	notC.Partial, comm.Partial = true, true
	switch {
	case notC.Confidence != comm.Confidence:
		if notC.Confidence > comm.Confidence {
			return notC
		}
		return comm
	case commAt < notAt:
		return comm
	}
	return notC
}

// transportFailure reports a short failure whose subject is the call
// itself or a check before it ("fetch failed", "request failed",
// "duplicate check failed"): it says nothing about the write.
func transportFailure(match string) bool {
	if w := strings.Fields(match); len(w) > 1 && (w[0] == "no" || w[0] == "nothing") && (transportNouns[w[1]] || replyNouns[w[1]]) {
		return true // "no response was received" says nothing about the write
	}
	if !strings.Contains(match, "fail") {
		return false
	}
	for _, w := range strings.Fields(match) {
		if w = strings.Trim(w, ".,:;"); transportNouns[w] || checkNouns[w] {
			return true
		}
	}
	return false
}

// replyNouns are what comes back from an upstream, whose absence says
// nothing about the write.
var replyNouns = wordSet("answer confirmation acknowledgement acknowledgment ack result receipt")

// checkNouns are checks a call runs before its write: their failure
// ("Duplicate check failed.") is a verdict on the request, not a
// statement that the write was tried.
var checkNouns = wordSet("check checks validation verification test tests probe lookup login authentication auth preflight")

// ownNotDone reports a statement that the called tool's own action did
// not happen, in its verb's participle: "The volume has not been resized"
// for resize_volume, "the label was not voided" for void_label. verb is
// the tool name's first part, "" when it has none; it returns where the
// statement starts.
func (s *sentence) ownNotDone(verb string) (int, bool) {
	if len(verb) < 3 {
		return 0, false
	}
	stem := strings.TrimSuffix(verb, "e")
	for i, t := range s.toks {
		w := t.w
		if !strings.HasPrefix(w, stem) || len(w) > len(stem)+3 || !(hasSuffix(w, "d") || hasSuffix(w, "n")) || i < 2 {
			continue
		}
		j := i - 1
		for j > 0 && (s.toks[j].w == "been" || s.toks[j].w == "yet") {
			j--
		}
		switch aux := s.w(j - 1); {
		case s.toks[j].w == "not" && auxWords[aux]:
			return s.toks[j-1].start, true
		case s.toks[j].w == "wasn't" || s.toks[j].w == "weren't" || s.toks[j].w == "hasn't" || s.toks[j].w == "haven't":
			return s.toks[j].start, true
		}
	}
	return 0, false
}

// auxWords carry a negated participle: "has not been resized".
var auxWords = wordSet("was were has have had is are")

// partDoneRE: some part stated done in any participle — "the skis and
// poles have been checked in", "P-101 and P-102 were scanned in". It
// marks Partial only beside a statement that another part was not done,
// so it needs no list of write verbs; the participles it leaves out say
// a failure or a request's reception, not a part done.
var partDoneRE = re(`\b(was|were|has been|have been|is|are)( now| already| all| both)? ([a-z]+ed|[a-z]+en)( in| out| up| on| through| off)?\b`)

var partDoneNeed = n("was ", "were ", "has been", "have been", "is ", "are ")

var partDoneNot = wordSet("interrupted rejected refused declined dropped closed aborted stopped failed timed reset blocked denied skipped ignored delayed held " +
	"flagged required expected needed allowed supposed based limited received accepted forwarded transmitted handed passed routed queued " +
	"asked told advised informed given taken broken cancelled canceled killed lost missed unconfirmed unacknowledged attempted tried retried " +
	"scheduled planned proposed requested submitted sent called used configured enabled disabled set seen shown listed found named")

// partDone reports an unconditional sentence that states some part done
// (partDoneRE). It runs only once a part was stated not done and no
// committed rule matched, so most replies never pay for it.
func partDone(p *prepared) bool {
	for si, sp := range p.sents {
		if !p.has(si, partDoneNeed) {
			continue
		}
		low := p.low(sp)
		if condRE.MatchString(low) {
			continue
		}
		for _, m := range partDoneRE.FindAllStringSubmatchIndex(low, 4) {
			if !partDoneNot[low[m[6]:m[7]]] && !whetherRE.MatchString(low[:m[0]]) && !futureRE.MatchString(low[:m[0]]) {
				return true
			}
		}
	}
	return false
}
