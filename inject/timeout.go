package inject

// Timeout holds traffic without answering: a TCP connection stops moving
// bytes (they wait in kernel buffers, held, not dropped); an HTTP request
// is not forwarded (direction request or both) or its reply is held
// (direction response). When the rule goes away the held traffic flows
// again. With CloseAfter, the connection is closed once held that long.
type Timeout struct {
	// CloseAfter zero holds until the rule goes away or the client gives up.
	CloseAfter Duration  `json:"close_after,omitempty" doc:"closes the held connection after this long (0: never)"`
	Direction  Direction `json:"direction,omitempty" choices:"request,response,both" doc:"which way is held"`
}

func timeoutKind() KindInfo {
	return KindInfo{
		Name: "timeout", Summary: "hold the connection or request without answering (bytes held, not dropped)", TCP: true, HTTP: true,
		New: func() Fault { return &Timeout{Direction: Both} },
		Behavior: []Behavior{
			{"", "", "Holds traffic without answering. Bytes are **held, not dropped**: when the rule is removed or expires they flow again. With `close_after`, the held connection is closed (FIN) once held that long."},
			{ProtocolTCP, "", "Stops reading in the direction at the next chunk; the peer's bytes wait in kernel buffers."},
			{ProtocolHTTP, Request, "Holds the request before the upstream sees anything."},
			{ProtocolHTTP, Response, "Forwards the request (the upstream commits) and holds the reply."},
			{ProtocolHTTP, Both, "Holds the request before the upstream sees anything."},
		},
		Examples: []map[string]any{{}},
	}
}

// effect implements [effecter]: the server hangs, and whether the upstream
// commits is decided by whether the rule goes or the server gives up
// first (for direction response it has already committed, but a healed
// hold delivers the reply).
func (*Timeout) effect(string) Effect { return Effect{Outcome: OutcomeUnknown} }

// Kind implements [Fault].
func (*Timeout) Kind() string { return "timeout" }

func (f *Timeout) validate() error {
	if f.Direction == "" {
		f.Direction = Both
	}
	return nil
}

// Chunk implements [StreamFault].
func (f *Timeout) Chunk(s Stream, p []byte) error {
	still, err := s.Hold(f.CloseAfter.d())
	if err != nil {
		return err
	}
	if still {
		_ = s.Close()
		return ErrConnEnded
	}
	return s.Write(p)
}

// Exchange implements [ExchangeFault].
func (f *Timeout) Exchange(x Exchange) error {
	if f.Direction.covers(Request) {
		still, err := x.Hold(f.CloseAfter.d())
		if err != nil {
			return err
		}
		if still {
			_ = x.Close()
			return ErrConnEnded
		}
		return nil // healed: forward as usual
	}
	// The upstream commits whatever the client does next, so its answer
	// is awaited even when the client gives up first: the exchange event
	// then records the commit as a fact.
	resp, err := x.Forward(ForwardOptions{AwaitAnswer: true})
	if err != nil {
		return err
	}
	still, err := x.Hold(f.CloseAfter.d())
	if err != nil {
		return err
	}
	if still {
		_ = x.Close()
		return ErrConnEnded
	}
	return x.Respond(resp, RespondOptions{})
}
