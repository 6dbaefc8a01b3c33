package inject

// Outcome is what a fault leaves the server (the client of the proxy)
// with: the truth at the upstream about the request the fault acted on,
// read together with [Effect.ServerKnows], which says whether what the
// server sees tells it that truth. Each kind declares its outcome as a
// function of its parameters and the protocol ([KindInfo.Effect]); the
// conformance tests hold every kind to it, and a judge reads it from
// injection events ([Event.Outcome]) to tell "failed before the upstream
// saw it" from "the upstream committed and the reply was lost".
//
// "Committed" means the upstream received the whole request and answered
// it: for HTTP a complete request (its whole body), for TCP every byte
// the client wrote. A TCP proxy cannot see an application's framing, so
// on TCP "part of the stream" may or may not hold complete requests.
type Outcome string

// Outcomes.
const (
	// OutcomeDelivered: timing only (latency, bandwidth). The exchange
	// completes: the upstream commits and the server gets the whole reply,
	// later or slower.
	OutcomeDelivered Outcome = "delivered"
	// OutcomeNotSent: no complete request reached the upstream, so it did
	// not commit. The upstream may have seen a connection, or an HTTP
	// request it cannot act upon (a body shorter than its declared
	// length). ServerKnows is true when the server's error proves it
	// (a refused connection), false when it sees a reset or EOF that a
	// fault after the upstream could have caused just as well.
	OutcomeNotSent Outcome = "not_sent"
	// OutcomeRejectedBeforeCommit: the server got an HTTP answer the
	// upstream never saw (http_error before the upstream). The upstream
	// received nothing and did not commit.
	OutcomeRejectedBeforeCommit Outcome = "rejected_before_commit"
	// OutcomePartiallyApplied: the upstream received a prefix of the TCP
	// stream (up to the fault's bytes) and then lost the connection. It may
	// have acted on the complete requests within that prefix; the server
	// cannot tell.
	OutcomePartiallyApplied Outcome = "partially_applied"
	// OutcomeCommittedReplyLost: the upstream received the whole request
	// and answered it; the server never gets that reply, or gets an error,
	// a cut or a reset instead. Retrying repeats the side effect unless
	// the upstream deduplicates.
	OutcomeCommittedReplyLost Outcome = "committed_reply_lost"
	// OutcomeUnknown: the traffic is held and the server is left hanging.
	// What the upstream ends up with is decided by a race the fault does
	// not settle: if the server gives up first, the request never reached
	// the upstream (or, held on the way back, its reply is lost); if the
	// rule goes away first, the held bytes flow and the upstream commits,
	// possibly after the server gave up.
	OutcomeUnknown Outcome = "unknown"
)

// Outcomes lists every outcome, in the order of the documentation.
func Outcomes() []Outcome {
	return []Outcome{OutcomeDelivered, OutcomeNotSent, OutcomeRejectedBeforeCommit,
		OutcomePartiallyApplied, OutcomeCommittedReplyLost, OutcomeUnknown}
}

// Commits reports what the outcome says of the upstream while the fault
// applies: yes (it committed), no (it did not), or maybe (partially
// applied: it depends on the framing; unknown: on the race).
func (o Outcome) Commits() string {
	switch o {
	case OutcomeDelivered, OutcomeCommittedReplyLost:
		return "yes"
	case OutcomeNotSent, OutcomeRejectedBeforeCommit:
		return "no"
	}
	return "maybe"
}

// Effect is a fault's outcome for one protocol with given parameters.
type Effect struct {
	Outcome Outcome `json:"outcome"`
	// ServerKnows reports that what the server sees is enough to know the
	// outcome: a delivered reply, a refused dial, a status that by HTTP
	// semantics means the request was not processed (4xx, 503). A reset,
	// an EOF, a hang or a 500 could follow a commit as well as precede it.
	ServerKnows bool `json:"server_knows"`
}

// effecter is implemented by every fault kind: its outcome on protocol
// (ProtocolTCP or ProtocolHTTP) with its current parameters.
type effecter interface {
	effect(protocol string) Effect
}

// EffectOf returns f's outcome on protocol; the zero Effect if f is not
// one of [Kinds].
func EffectOf(f Fault, protocol string) Effect {
	if e, ok := f.(effecter); ok {
		return e.effect(protocol)
	}
	return Effect{}
}

// withEffect fills an injection event's outcome from the fault applied,
// on the event's protocol.
func withEffect(e Event, f any) Event {
	if fl, ok := f.(Fault); ok {
		ef := EffectOf(fl, e.Protocol)
		e.Outcome, e.ServerKnows = ef.Outcome, ef.ServerKnows
	}
	return e
}

// cutEffect is the outcome of cutting a write after bytes bytes in dir
// (partial_write, reset). A cut reply is lost after the upstream
// committed. A cut request: an HTTP upstream never gets a complete
// request, so never commits, whatever bytes is; a TCP upstream gets a
// prefix of the stream, nothing at all when bytes is 0. The server sees a
// reset or EOF in every case, which does not tell it which.
func cutEffect(protocol string, dir Direction, bytes int64) Effect {
	switch {
	case dir != Request:
		return Effect{Outcome: OutcomeCommittedReplyLost}
	case protocol == ProtocolTCP && bytes > 0:
		return Effect{Outcome: OutcomePartiallyApplied}
	}
	return Effect{Outcome: OutcomeNotSent}
}

// Describe says what o means, in a sentence for the documentation and
// the API (the constants' comments say the same at more length).
func (o Outcome) Describe() string {
	switch o {
	case OutcomeDelivered:
		return "Timing only: the upstream commits and the server gets the whole reply, later or slower."
	case OutcomeNotSent:
		return "No complete request reached the upstream, so it did not commit. The server knows only when its error proves it (a refused connection); a reset or EOF could equally follow a commit."
	case OutcomeRejectedBeforeCommit:
		return "The server got an HTTP answer the upstream never saw; the upstream did not commit."
	case OutcomePartiallyApplied:
		return "The upstream received a prefix of the TCP stream, then lost the connection: it may have acted on the complete requests within it. The server cannot tell."
	case OutcomeCommittedReplyLost:
		return "The upstream received the whole request and answered; the server never gets that reply, or gets an error, a cut or a reset instead. A retry repeats the side effect unless the upstream deduplicates."
	case OutcomeUnknown:
		return "The traffic is held and the server hangs. If it gives up first, nothing reached the upstream (or, held on the way back, the reply is lost); if the rule goes first, the held bytes flow and the upstream commits, perhaps after the server gave up."
	}
	return ""
}
