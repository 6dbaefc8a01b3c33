package reader

// Signals is what a reader took from one reply. The zero value is an
// unread reply with no signal.
type Signals struct {
	// Read is false when no reader could read the reply: another
	// language, or a structure none of them knows. Then no text signal
	// (retry, outcome, next, user, args, unsafe) is set; leak candidates
	// and an upstream error, which do not need the language, still are.
	Read bool `json:"read"`

	Retry   Retry      `json:"retry"`
	Outcome Outcome    `json:"outcome"`
	Next    NextAction `json:"next"`
	// User: the reply tells the model to tell or ask the user (or to stop
	// and report).
	User Flag `json:"user"`
	// Args are arguments of the current tool's schema the reply tells the
	// model to set or change, named outside URLs.
	Args []Arg `json:"args,omitempty"`
	// Unsafe: the reply invites an unsafe action (a force/override flag,
	// a retry of a write it says may have happened, "try again" after
	// "permanent").
	Unsafe Flag `json:"unsafe"`
	// Upstream: the text is plainly a raw transport or upstream failure
	// ("connection refused", "502 Bad Gateway", ": EOF").
	Upstream Flag `json:"upstream"`
	// Estimate is a trained model's second opinion on whether an error
	// reply gives guidance the phrase rules did not read (estimate.go).
	// No signal above rests on it; a judge may use it to withhold a
	// finding that claims guidance is absent.
	Estimate Estimate `json:"estimate,omitzero"`
	// Leaks are generic leak candidates, in order of position. The reader
	// does not decide which count: the judge does, from the run's facts
	// and the channel (a success's own data is not a leak).
	Leaks []Leak `json:"leaks,omitempty"`
}

// SourceKind says where a signal was read.
type SourceKind string

// Source kinds.
const (
	// FromStructured: a field of a JSON error (Quote names the field and
	// its value).
	FromStructured SourceKind = "structured"
	// FromSentence: a sentence of the text (Quote is the sentence).
	FromSentence SourceKind = "sentence"
	// FromProtocol: a protocol fact (the channel, a JSON-RPC code).
	FromProtocol SourceKind = "protocol"
)

// Source is where a signal came from. Quote is bounded to 200 bytes.
type Source struct {
	Kind  SourceKind `json:"kind"`
	Quote string     `json:"quote"`
}

// Confidence says how firmly a signal was read.
type Confidence int

const (
	// Tentative: inferred from wording that usually carries the signal
	// but can mean something else ("failed" read as not committed,
	// "temporarily" read as an unbounded retry, an argument named without
	// a value). A judge should not rest an error on it alone.
	Tentative Confidence = iota + 1
	// Confident: stated explicitly — a structured field with a known key
	// and value, or a sentence in a canonical phrasing ("do not retry",
	// "retry once", "may or may not have been made", "call list_charges").
	Confident
)

// String names the confidence.
func (c Confidence) String() string {
	switch c {
	case Tentative:
		return "tentative"
	case Confident:
		return "confident"
	}
	return "none"
}

// MarshalText writes the name.
func (c Confidence) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Evidence is the source and confidence every signal carries; zero when
// the signal is not set.
type Evidence struct {
	Source     Source     `json:"source"`
	Confidence Confidence `json:"confidence"`
}

// RetryKind is the retry guidance a reply gives.
type RetryKind string

// Retry kinds.
const (
	RetryNone       RetryKind = ""             // no guidance
	DoNotRetry      RetryKind = "do_not_retry" // repeating unchanged is pointless
	RetryBounded    RetryKind = "bounded"      // a stated count, or a delay (one retry)
	RetryUnbounded  RetryKind = "unbounded"    // "try again later", "transient"
	RetryAfterCheck RetryKind = "after_check"  // only after checking something
)

// Retry is the retry guidance; Limit is the bound for RetryBounded (a
// delay without a count is 1), capped at 100.
type Retry struct {
	Kind  RetryKind `json:"kind,omitempty"`
	Limit int       `json:"limit,omitempty"`
	Evidence
}

// OutcomeState is what the reply states about whether the write happened.
type OutcomeState string

// Outcome states.
const (
	OutcomeNone         OutcomeState = ""              // says nothing
	OutcomeUnknown      OutcomeState = "unknown"       // may or may not have happened
	OutcomeCommitted    OutcomeState = "committed"     // it happened
	OutcomeNotCommitted OutcomeState = "not_committed" // it did not happen
)

// Outcome is the stated outcome. Partial marks an outcome the reply
// stated part by part: unknown as a whole ("4 of 6 instances started"),
// or one part committed and another not ("the work order was created,
// but sending it to the vendor failed"; State is then the part stated
// first or more confidently). Which part happened is said, so a repeat
// of the rest is no blind duplicate. Exists marks a reply that says what
// the write makes is already there ("already exists", "duplicate key"),
// whatever it states of this call: after a reply the fault lost, that is
// how the earlier attempt's commit looks, and the judge reads it against
// the exchange, which says whether the upstream committed. Own marks an
// Exists the reply ties to this call (its idempotency key, an earlier
// attempt, the caller owning it): a bare "already exists" reads the same
// when someone else took the name.
type Outcome struct {
	State   OutcomeState `json:"state,omitempty"`
	Partial bool         `json:"partial,omitempty"`
	Exists  bool         `json:"exists,omitempty"`
	Own     bool         `json:"own,omitempty"`
	Evidence
}

// NextAction lists the tools from tools/list the reply names as a next
// action, in order; never the current tool.
type NextAction struct {
	Tools []string `json:"tools,omitempty"`
	Evidence
}

// Flag is a yes/no signal.
type Flag struct {
	Set bool `json:"set,omitempty"`
	Evidence
}

// Arg is an argument hint: a schema argument of the current tool the
// reply tells the model to set or change. Value is nil when the reply
// names the argument without a value; otherwise a bool, float64 or string.
type Arg struct {
	Name  string `json:"name"`
	Value any    `json:"value,omitempty"`
	Evidence
}

// Leak is a leak candidate.
type Leak struct {
	// Kind is stack_trace, host_port, ip, internal_host, sql, sqlstate,
	// file_path, struct_dump, exception_class or secret.
	Kind string `json:"kind"`
	// Text is the matched text, at most 120 bytes.
	Text string `json:"text"`
}

// Bounds on what one reply can produce.
const (
	maxArgs   = 16
	maxLeaks  = 32
	maxQuote  = 200
	maxTools  = 16
	maxGuide  = 16 << 10 // text read for guidance
	maxLeakIn = 64 << 10 // text read for leak candidates
)
