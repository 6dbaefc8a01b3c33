package inject

import (
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// Bandwidth limits throughput to Rate bytes per second.
type Bandwidth struct {
	// Rate is the limit in bytes per second.
	Rate int64 `json:"rate"`
	// Direction is request, response (default) or both.
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

// Exchange implements [ExchangeFault]: direction request paces the
// request body on its way to the upstream (a slow writer), response the
// reply's body as it is read from the upstream (a slow reader).
func (f *Bandwidth) Exchange(x Exchange) error {
	var fo ForwardOptions
	if f.Direction.covers(Request) {
		fo.Rate = f.Rate
	}
	resp, err := x.Forward(fo)
	if err != nil {
		return err
	}
	var ro RespondOptions
	if f.Direction.covers(Response) {
		ro.Rate = f.Rate
	}
	return x.Respond(resp, ro)
}
