package inject

// Timeout holds traffic without answering: a TCP connection stops moving
// bytes (they wait in kernel buffers, held, not dropped); an HTTP request
// is not forwarded (direction request or both) or its reply is held
// (direction response). When the rule goes away the held traffic flows
// again. With CloseAfter, the connection is closed once held that long.
type Timeout struct {
	// CloseAfter closes the held connection after this long; zero holds
	// until the rule goes away or the client gives up.
	CloseAfter Duration `json:"close_after,omitempty"`
	// Direction is request, response or both (default).
	Direction Direction `json:"direction,omitempty"`
}

// Kind implements [Fault].
func (*Timeout) Kind() string { return "timeout" }

func (f *Timeout) validate() error {
	if f.Direction == "" {
		f.Direction = Both
	}
	return checkDirection(f.Direction, true)
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
	resp, err := x.Forward(ForwardOptions{})
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
