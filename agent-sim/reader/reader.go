// Package reader turns a tool server's reply into the signals a model
// would take from it — retry guidance, the stated outcome of a write, a
// next action, arguments to change, an unsafe invitation, a raw upstream
// failure and leak candidates — each with its source and a confidence.
//
// Reading is separate from acting and from grading: the simulated agent
// and the judge consume [Signals] and never parse text. A reply no reader
// can read (another language, an unknown structure) is reported as
// unread (Signals.Read false) instead of being guessed at.
//
// The default reader ([New]) chains a structured reader for JSON errors
// and an English reader; [Chain] composes any [Reader]s, so a user can add
// one for another language or a house error format. docs/reader.md
// documents exactly what each reader reads.
package reader

// Channel is what carried the reply.
type Channel string

// The three channels a tools/call reply can take.
const (
	Success       Channel = "success"        // a result without isError
	ToolError     Channel = "tool_error"     // a result with isError: true
	ProtocolError Channel = "protocol_error" // a JSON-RPC error object
)

// Reply is one reply to read.
type Reply struct {
	Channel Channel
	// Text is the text content of the result, or the JSON-RPC error
	// message. Only the first 64 KiB are read (16 KiB for guidance).
	Text string
	// Structured is the result's structuredContent (raw JSON), if any.
	// Only the first 64 KiB are parsed; longer content is not read.
	Structured []byte
	// Code is the JSON-RPC error code on a protocol error, else 0.
	Code int
}

// Tool is one tool from tools/list: its name and its input-schema
// argument names.
type Tool struct {
	Name   string
	Params []string
}

// Context is what the reader knows besides the reply.
type Context struct {
	// Tools is what tools/list returned; only these names count as a
	// next action.
	Tools []Tool
	// Current is the tool the reply answers; its Params are the only
	// argument names an argument hint may carry.
	Current Tool
}

// Reader reads one reply. Implementations must be safe for concurrent
// use, bounded in the work they do, and must not retain the reply.
type Reader interface {
	Read(r Reply, ctx Context) Signals
}

// ReaderFunc adapts a function to [Reader].
type ReaderFunc func(r Reply, ctx Context) Signals

// Read calls f.
func (f ReaderFunc) Read(r Reply, ctx Context) Signals { return f(r, ctx) }

// Options configures [New].
type Options struct {
	// Extra readers run after the built-in ones; their signals fill what
	// the built-in readers left unset and replace tentative ones with
	// confident ones (see [Chain]).
	Extra []Reader
	// NoEnglish leaves the English reader out, so only structured
	// replies, code-quoted tool names in replies in other languages, and
	// the Extra readers are read.
	NoEnglish bool
}

// New returns the default reader: the structured reader, then the
// English reader, then the reader of code-quoted tool names in replies
// no other reader reads, then opts.Extra, combined with [Chain].
func New(opts Options) Reader {
	rs := []Reader{ReaderFunc(readStructured)}
	if !opts.NoEnglish {
		rs = append(rs, ReaderFunc(readEnglish))
	}
	rs = append(rs, ReaderFunc(readMentions))
	return Chain(append(rs, opts.Extra...)...)
}

// Read reads r with the default reader (New(Options{})).
func Read(r Reply, ctx Context) Signals {
	return Chain(ReaderFunc(readStructured), ReaderFunc(readEnglish), ReaderFunc(readMentions)).Read(r, ctx)
}

// Chain returns a reader that runs rs in order and merges their signals:
// the reply is read when any reader read it; each signal comes from the
// first reader that set it, unless a later reader sets it confidently
// where the earlier one was tentative. Leak candidates and upstream
// errors, which do not depend on reading guidance, are taken from the
// first reader that reports any.
func Chain(rs ...Reader) Reader {
	return ReaderFunc(func(r Reply, ctx Context) Signals {
		var out Signals
		for _, rd := range rs {
			out = merge(out, rd.Read(r, ctx))
		}
		if !out.Read {
			// The honest "could not read": no text signal survives.
			out = Signals{Leaks: out.Leaks, Upstream: out.Upstream}
		}
		return out
	})
}

// merge fills a with b where b is better, per Chain's rule.
func merge(a, b Signals) Signals {
	a.Read = a.Read || b.Read
	if better(a.Retry.Kind != RetryNone, a.Retry.Confidence, b.Retry.Kind != RetryNone, b.Retry.Confidence) {
		a.Retry = b.Retry
	}
	exists, own := a.Outcome.Exists || b.Outcome.Exists, a.Outcome.Own || b.Outcome.Own // whichever reader saw it
	if better(a.Outcome.State != OutcomeNone, a.Outcome.Confidence, b.Outcome.State != OutcomeNone, b.Outcome.Confidence) {
		a.Outcome = b.Outcome
	}
	a.Outcome.Exists, a.Outcome.Own = exists, own
	if better(len(a.Next.Tools) > 0, a.Next.Confidence, len(b.Next.Tools) > 0, b.Next.Confidence) {
		a.Next = b.Next
	}
	if better(a.User.Set, a.User.Confidence, b.User.Set, b.User.Confidence) {
		a.User = b.User
	}
	if better(a.Unsafe.Set, a.Unsafe.Confidence, b.Unsafe.Set, b.Unsafe.Confidence) {
		a.Unsafe = b.Unsafe
	}
	seen := map[string]bool{}
	for _, x := range a.Args {
		seen[x.Name] = true
	}
	for _, x := range b.Args {
		if !seen[x.Name] && len(a.Args) < maxArgs {
			seen[x.Name] = true
			a.Args = append(a.Args, x)
		}
	}
	if !a.Upstream.Set {
		a.Upstream = b.Upstream
	}
	if a.Estimate == (Estimate{}) {
		a.Estimate = b.Estimate
	}
	if len(a.Leaks) == 0 {
		a.Leaks = b.Leaks
	}
	return a
}

// better reports whether b should replace a.
func better(aSet bool, ac Confidence, bSet bool, bc Confidence) bool {
	return bSet && (!aSet || ac < Confident && bc >= Confident)
}
