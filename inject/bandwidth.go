package inject

import (
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// Bandwidth limits throughput to Rate bytes per second.
type Bandwidth struct {
	// Rate is the limit in bytes per second.
	Rate int64 `json:"rate"`
	// Direction is request, response (default) or both. HTTP paces
	// response bodies only.
	Direction Direction `json:"direction,omitempty"`
}

// Kind implements [Fault].
func (*Bandwidth) Kind() string { return "bandwidth" }

func (f *Bandwidth) validate() error {
	if f.Rate <= 0 {
		return &rules.FieldError{Field: "fault.rate", Msg: "is required: bytes per second, more than 0"}
	}
	return checkDirection(f.Direction, true)
}

// Chunk implements [StreamFault]: it writes in slices of a tenth of a
// second's worth and sleeps between them.
func (f *Bandwidth) Chunk(s Stream, p []byte) error {
	slice := max(f.Rate/10, 1)
	for len(p) > 0 {
		n := min(int64(len(p)), slice)
		if err := s.Write(p[:n]); err != nil {
			return err
		}
		p = p[n:]
		if err := s.Sleep(time.Duration(n) * time.Second / time.Duration(f.Rate)); err != nil {
			return err
		}
	}
	return nil
}

// Exchange implements [ExchangeFault].
func (f *Bandwidth) Exchange(x Exchange) error {
	resp, err := x.Forward(-1)
	if err != nil {
		return err
	}
	return x.Respond(resp, RespondOptions{Rate: f.Rate})
}
