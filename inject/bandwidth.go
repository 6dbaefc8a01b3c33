package inject

import "time"

// Bandwidth limits throughput to Rate bytes per second.
type Bandwidth struct {
	// Rate is the limit in bytes per second.
	Rate int64 `json:"rate" required:"true" min:"1" max:"1099511627776" doc:"bytes per second"`
	// Direction is request, response (default) or both.
	Direction Direction `json:"direction,omitempty" choices:"request,response,both" doc:"which way is paced"`
}

func bandwidthKind() KindInfo {
	return KindInfo{
		Name: "bandwidth", Summary: "limit throughput to a rate in bytes per second", TCP: true, HTTP: true,
		New: func() Fault { return &Bandwidth{Direction: Response} },
		Behavior: []Behavior{
			{ProtocolTCP, "", "Paces the bytes of the direction to `rate` bytes per second: each slice of a tenth of a second's worth is written after the time it takes to cross a link of that rate."},
			{ProtocolHTTP, Request, "Paces the request body to the upstream: the upstream sees a slow writer."},
			{ProtocolHTTP, Response, "Paces the reply body to the client while reading it from the upstream: the upstream sees a slow reader."},
			{ProtocolHTTP, Both, "Paces both bodies."},
		},
		Examples: []map[string]any{{"rate": 1000, "direction": "both"}},
	}
}

// effect implements [effecter]: timing only.
func (*Bandwidth) effect(string) Effect { return Effect{Outcome: OutcomeDelivered, ServerKnows: true} }

// Kind implements [Fault].
func (*Bandwidth) Kind() string { return "bandwidth" }

// Chunk implements [StreamFault]: it writes in slices of a tenth of a
// second's worth, each after the time it takes to cross a link of that
// rate, as the HTTP pacer does: N bytes take at least N/rate from when
// they are read to when the last of them is written.
func (f *Bandwidth) Chunk(s Stream, p []byte) error {
	slice := max(f.Rate/10, 1)
	for len(p) > 0 {
		n := min(int64(len(p)), slice)
		if err := s.Sleep(time.Duration(n) * time.Second / time.Duration(f.Rate)); err != nil {
			return err
		}
		if err := s.Write(p[:n]); err != nil {
			return err
		}
		p = p[n:]
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
