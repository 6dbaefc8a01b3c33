package inject

// ResponseLost is the ambiguous outcome: the request reaches the upstream
// whole, the upstream answers (so a write has committed), and the answer
// never reaches the client, which then hangs (mode hang) or sees its
// connection reset (mode reset). A client that retries duplicates the
// side effect unless the upstream deduplicates.
type ResponseLost struct {
	Mode string `json:"mode,omitempty" choices:"hang,reset" doc:"what the client gets instead of the reply"`
}

func responseLostKind() KindInfo {
	return KindInfo{
		Name: "response_lost", Summary: "deliver the request, let the upstream commit, never deliver the reply", TCP: true, HTTP: true,
		New: func() Fault { return &ResponseLost{Mode: "hang"} },
		Behavior: []Behavior{
			{"", "", "Delivers the whole request and lets the upstream answer (so a write **commits**), then never delivers the answer: the client hangs until its own deadline (`hang`) or sees a reset (`reset`). The ambiguous outcome that duplicates side effects on retry. When the rule goes away a hung connection is closed: the lost reply is never delivered late, and a TCP stream never resumes with a hole in it. On HTTP the proxy waits for the upstream's answer even when the client gives up first (for up to a minute), so the exchange event's `committed` says what the upstream did."},
		},
		Examples: []map[string]any{{"mode": "hang"}, {"mode": "reset"}},
	}
}

// effect implements [effecter].
func (*ResponseLost) effect(string) Effect { return Effect{Outcome: OutcomeCommittedReplyLost} }

// Kind implements [Fault].
func (*ResponseLost) Kind() string { return "response_lost" }

// Chunk implements [StreamFault]: it sees replies only (requests reach the
// upstream whole). The first reply bytes are dropped, and the client then
// hangs while the rule applies: reading stops, so the rest of the reply
// and the upstream's close wait in kernel buffers. When the rule goes the
// connection is closed, never resumed: resuming would deliver the rest of
// the stream with a hole in it, as no real network does.
func (f *ResponseLost) Chunk(s Stream, p []byte) error {
	s.Discard(p)
	if f.Mode == "reset" {
		_ = s.Reset()
		return ErrConnEnded
	}
	if _, err := s.Hold(0); err != nil {
		return err
	}
	_ = s.Close()
	return ErrConnEnded
}

// Exchange implements [ExchangeFault].
func (f *ResponseLost) Exchange(x Exchange) error {
	// The reply is lost whatever it was: its body is not read. Its head
	// is awaited even if the client gives up first, so the exchange
	// event's committed is what the upstream did, not a race with the
	// client's deadline.
	if resp, err := x.Forward(ForwardOptions{AwaitAnswer: true}); err == nil {
		resp.discard()
	}
	if f.Mode == "reset" {
		_ = x.Reset()
		return ErrConnEnded
	}
	// Hang until the client gives up. If the rule goes away meanwhile the
	// reply is still lost: close rather than answer.
	if _, err := x.Hold(0); err != nil {
		return err
	}
	_ = x.Close()
	return ErrConnEnded
}
