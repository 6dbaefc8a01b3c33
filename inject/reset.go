package inject

import "github.com/mcpchaos/mcpchaos/rules"

// Reset ends the connection with a TCP RST once Bytes bytes have gone
// through in its direction (0: at the first byte). For HTTP, direction
// request resets before the upstream sees more than Bytes body bytes;
// direction response resets after Bytes bytes of the reply's body.
type Reset struct {
	// Bytes is how many bytes pass before the reset.
	Bytes int64 `json:"bytes,omitempty"`
	// Direction is request or response (default).
	Direction Direction `json:"direction,omitempty"`
}

// Kind implements [Fault].
func (*Reset) Kind() string { return "reset" }

func (f *Reset) validate() error {
	if f.Bytes < 0 {
		return &rules.FieldError{Field: "fault.bytes", Msg: "must not be negative"}
	}
	return checkDirection(f.Direction, false)
}

// Chunk implements [StreamFault].
func (f *Reset) Chunk(s Stream, p []byte) error {
	return cutStream(s, p, f.Bytes, true)
}

// Exchange implements [ExchangeFault].
func (f *Reset) Exchange(x Exchange) error {
	if f.Direction == Request {
		if f.Bytes > 0 {
			_, _ = x.Forward(ForwardOptions{Cut: true, CutAfter: f.Bytes})
		}
		_ = x.Reset()
		return ErrConnEnded
	}
	resp, err := x.Forward(ForwardOptions{})
	if err != nil {
		return err
	}
	if err := x.Respond(resp, RespondOptions{Cut: true, CutAfter: f.Bytes, Reset: true}); err != nil {
		return err
	}
	return ErrConnEnded
}
