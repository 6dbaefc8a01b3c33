package inject

// PartialWrite cuts a write short. Direction request: the upstream sees the
// first Bytes bytes of the request (for HTTP, a body shorter than its
// declared Content-Length). Direction response: the client sees the first
// Bytes bytes of the reply (for HTTP, of the body). Then the connection is
// reset or closed.
type PartialWrite struct {
	Bytes     int64     `json:"bytes" min:"0" doc:"how many bytes get through"`
	Direction Direction `json:"direction,omitempty" choices:"request,response" doc:"which write is cut"`
	Then      string    `json:"then,omitempty" choices:"reset,close" doc:"how the connection ends after the cut: RST or FIN"`
}

func partialWriteKind() KindInfo {
	return KindInfo{
		Name: "partial_write", Summary: "cut the request or the response after N bytes, then reset or close", TCP: true, HTTP: true,
		New: func() Fault { return &PartialWrite{Direction: Response, Then: "reset"} },
		Behavior: []Behavior{
			{ProtocolTCP, Request, "The upstream receives the next `bytes` bytes of the client's stream, counted from when the rule starts to apply to the connection, then the connection is reset or closed."},
			{ProtocolTCP, Response, "The client receives the next `bytes` bytes of the upstream's stream, counted from when the rule starts to apply to the connection, then the connection is reset or closed."},
			{ProtocolHTTP, Request, "The upstream never receives a complete request, whatever `bytes` is (a body shorter than its Content-Length at most), so it cannot commit; the client's connection is reset or closed."},
			{ProtocolHTTP, Response, "The upstream commits; the client receives the status, the headers and the first `bytes` bytes of the body (its Content-Length declares the whole), then the connection is reset or closed."},
		},
		Examples: []map[string]any{{"bytes": 10, "direction": "request"}, {"bytes": 0, "direction": "request"}, {"bytes": 10, "direction": "response"}},
	}
}

// effect implements [effecter].
func (f *PartialWrite) effect(protocol string) Effect {
	return cutEffect(protocol, f.Direction, f.Bytes)
}

// Kind implements [Fault].
func (*PartialWrite) Kind() string { return "partial_write" }

// Chunk implements [StreamFault].
func (f *PartialWrite) Chunk(s Stream, p []byte) error {
	return cutStream(s, p, f.Bytes, f.Then == "reset")
}

// cutStream forwards p as long as fewer than limit bytes have gone through
// in s's direction, then ends the connection.
func cutStream(s Stream, p []byte, limit int64, reset bool) error {
	left := limit - s.Forwarded()
	if left > int64(len(p)) {
		return s.Write(p)
	}
	if left > 0 {
		if err := s.Write(p[:left]); err != nil {
			return err
		}
	}
	if reset {
		_ = s.Reset()
	} else {
		_ = s.Close()
	}
	return ErrConnEnded
}

// Exchange implements [ExchangeFault].
func (f *PartialWrite) Exchange(x Exchange) error {
	reset := f.Then == "reset"
	if f.Direction == Request {
		// The upstream's reaction to a short body (an error, a hang until
		// its own timeout) is its own; the client only sees the cut.
		_, _ = x.Forward(ForwardOptions{Cut: true, CutAfter: f.Bytes})
		if reset {
			_ = x.Reset()
		} else {
			_ = x.Close()
		}
		return ErrConnEnded
	}
	// As for response_lost: the upstream commits, and a client that gives
	// up before the cut must not turn that commit into "not reached".
	resp, err := x.Forward(ForwardOptions{AwaitAnswer: true})
	if err != nil {
		return err
	}
	if err := x.Respond(resp, RespondOptions{Cut: true, CutAfter: f.Bytes, Reset: reset}); err != nil {
		return err
	}
	return ErrConnEnded
}
