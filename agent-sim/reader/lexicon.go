package reader

// Word classes the English reader's clause rules are built from. A rule
// names a class, not a phrase: "stop calling send_email", "never resend
// it" and "do not redeploy" are one rule (a prohibition scoping over a
// repeat of the call), and a new synonym is one word added here. Words
// are the lower-case tokens of clause.go (apostrophes and hyphens kept).
var (
	// negators negate the predicate after them in their clause.
	negators = wordSet("not no never nothing none neither nor without cannot can't don't doesn't didn't isn't aren't " +
		"wasn't weren't won't wouldn't shouldn't mustn't hasn't haven't hadn't couldn't")
	// prohibitors, before a repeat of the call, forbid it.
	prohibitors = wordSet("not never don't stop avoid mustn't shouldn't")
	// modals of possibility make a completion uncertain.
	possibility = wordSet("may might could possibly perhaps maybe probably")
	// condMarkers open a clause that holds only under a condition.
	condMarkers = wordSet("if when whenever unless once whether should")

	// completions are what a write does, as participles and past forms:
	// "was created", "never left the outbox", "may have gone through".
	completions = wordSet("created charged made sent saved written applied processed booked posted delivered placed submitted " +
		"transferred issued committed reserved recorded stored taken moved paid refunded debited billed captured settled " +
		"executed performed completed published deployed inserted updated deleted replaced scheduled enqueued queued " +
		"accepted persisted registered opened filed logged transmitted dispatched shipped added removed changed modified " +
		"reached landed left succeeded done happened deducted withdrawn")
	// baseWrites are the base forms of write verbs, read after "did not",
	// "could not", "was unable to": "we did not create the ticket".
	baseWrites = wordSet("create charge send save write apply process book post deliver place submit transfer issue " +
		"commit reserve record store pay refund debit bill capture settle execute perform complete publish deploy " +
		"insert update delete replace schedule persist ship modify happen")
	// pendingWords say a write is still under way.
	pendingWords = wordSet("pending processing in-progress unconfirmed")
	// rejections say the write was turned away: "Transfer refused",
	// "the issuer has refused this payment", "the batch was rejected".
	rejections = wordSet("declined rejected refused cancelled canceled aborted reversed reverted abandoned discarded voided " +
		"rejects refuses declines denied denies")
	// writeNouns are what a write tool makes; transportNouns are the
	// call itself, whose failure says nothing about the write.
	writeNouns = wordSet("payment payments charge charges transfer transfers transaction transactions order orders booking " +
		"bookings reservation shipment shipments deploy deployment deployments rollout release insert inserts update updates " +
		"write writes change changes message messages email emails invoice invoices refund refunds ticket tickets entry " +
		"entries record records row rows batch item items issue issues event events upload job jobs operation purchase commit " +
		"mutation post page push pushes apply migration migrations publish merge statement manifest contact resource " +
		"resources file files upload")
	transportNouns = wordSet("request requests call calls connection connections fetch lookup query queries dial handshake " +
		"read response reply socket stream session api endpoint gateway proxy")
	// unknownWords say a state is not known.
	unknownWords = wordSet("unknown unclear uncertain unsure indeterminate undetermined undecided ambiguous")
	// knowWords, after a negation, say the same: "not yet determined".
	knowWords = wordSet("known determined clear certain confirmed established resolved")
	// outcomeNouns are what an unknown-state word must be about.
	outcomeNouns = wordSet("outcome outcomes result results status state fate effect whether")
	// tellVerbs, after "cannot"/"unable to"/"impossible to", say the
	// outcome cannot be told: "impossible to tell whether".
	tellVerbs = wordSet("tell say know determine confirm verify establish rule see")

	// retryVerbs repeat the call: "resubmit", "redeploy", "have another go".
	retryVerbs = wordSet("retry retrying retried retries re-try resend resending re-send resubmit resubmitting re-submit " +
		"resubmitted re-run rerun re-running rerunning re-create recreate re-creating recreating redeploy re-deploy " +
		"redeploying rebook re-book reinsert re-insert repeat repeating re-issue reissue re-post repost re-charge recharge " +
		"resubmission re-submission")
	// retryNouns are a repeat of the call as a noun: "a repeat of this
	// call", "every further send", "another attempt".
	retryNouns = wordSet("retry retries retrying attempt attempts try tries repeat resend resubmission go send sends call " +
		"calls request requests submission trying")
	// furtherWords make a call noun a repeat: "further", "another".
	furtherWords = wordSet("further another more additional subsequent repeated extra second next")
	// futileWords judge a repeat useless: "retrying: pointless".
	futileWords = wordSet("pointless futile useless hopeless inadvisable forbidden prohibited disallowed")
	// advisedWords, negated after a repeat, say not to: "retrying is not
	// recommended".
	advisedWords = wordSet("recommended advised advisable allowed permitted supported wise")
	// remedyVerbs, negated after a repeat, say it will not help: "trying
	// it again won't get a different answer".
	remedyVerbs = wordSet("help work succeed change fix get give make produce solve matter resolve")
	// failVerbs, after "will", say a repeat fails: "will be refused the
	// same way", "will fail identically".
	failVerbs = wordSet("fail fails refused rejected declined denied blocked")

	// checkVerbs ask the model to look something up first.
	checkVerbs = wordSet("check checked checking verify verified confirm confirmed look looked ensure see query inspect " +
		"consult consulted search review examine compare reconcile double-check cross-check watch monitor re-read reread " +
		"re-fetch refetch reload refresh re-check recheck")
	// actionVerbs, earlier in a clause, make a listed tool named after
	// them a next action: "it should be checked against list_bookings",
	// "pick one from search_rooms".
	actionVerbs = wordSet("call calling use using run running invoke try check checked checking consult consulting verify " +
		"confirm look looking see search searching find query inspect pick choose select get fetch list compare review " +
		"handled handle refresh reload open ask sure ensure reconcile double-check cross-check refer lookup look-up fall switch " +
		"watch monitor")
	// reportVerbs, after a tool named as subject, make it the next
	// action: "get_transfer will show its real state".
	reportVerbs = wordSet("show shows tell tells list lists return returns confirm confirms give gives report reports")

	// delayUnits are the units of a delay before a retry.
	delayUnits = wordSet("ms millisecond milliseconds s sec secs second seconds m min mins minute minutes h hr hrs hour " +
		"hours day days moment moments while bit")
	// delayTimes are points in time a retry may wait for.
	delayTimes = wordSet("midnight noon tomorrow tonight morning")
	// waitVerbs introduce a delay: "leave it a quarter of an hour".
	waitVerbs = wordSet("wait leave give allow pause hold")
	// countWords are spelled-out counts.
	countWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
		"nine": 9, "ten": 10, "once": 1, "twice": 2, "thrice": 3, "single": 1, "couple": 2}
)
