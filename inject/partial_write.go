package inject

import "github.com/mcpchaos/mcpchaos/rules"

// PartialWrite cuts a write short. Direction request: the upstream sees the
// first Bytes bytes of the request (for HTTP, a body shorter than its
// declared Content-Length). Direction response: the client sees the first
// Bytes bytes of the reply (for HTTP, of the body). Then the connection is
// reset or closed.
type PartialWrite struct {
	// Bytes is how many bytes get through.
	Bytes int64 `json:"bytes"`
	// Direction is request or response (default).
	Direction Direction `json:"direction,omitempty"`
	// Then is reset (default) or close.
	Then string `json:"then,omitempty"`
}

// Kind implements [Fault].
func (*PartialWrite) Kind() string { return "partial_write" }

func (f *PartialWrite) validate() error {
	if f.Bytes < 0 {
		return &rules.FieldError{Field: "fault.bytes", Msg: "must not be negative"}
	}
	if err := checkDirection(f.Direction, false); err != nil {
		return err
	}
	return checkOneOf("then", f.Then, "reset", "close")
}

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
	resp, err := x.Forward(ForwardOptions{})
	if err != nil {
		return err
	}
	if err := x.Respond(resp, RespondOptions{Cut: true, CutAfter: f.Bytes, Reset: reset}); err != nil {
		return err
	}
	return ErrConnEnded
}
