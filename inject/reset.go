package inject

// Reset ends the connection with a TCP RST once Bytes bytes have gone
// through in its direction (0: at the first byte). For HTTP, direction
// request resets before the upstream sees more than Bytes body bytes;
// direction response resets after Bytes bytes of the reply's body.
type Reset struct {
	Bytes     int64     `json:"bytes,omitempty" min:"0" doc:"how many bytes pass before the reset"`
	Direction Direction `json:"direction,omitempty" choices:"request,response" doc:"which write is reset"`
}

func resetKind() KindInfo {
	return KindInfo{
		Name: "reset", Summary: "reset the connection (RST) after N bytes", TCP: true, HTTP: true,
		New: func() Fault { return &Reset{Direction: Response} },
		Behavior: []Behavior{
			{ProtocolTCP, "", "Ends the connection with a TCP RST once `bytes` bytes have gone through in the direction, counted from when the rule starts to apply to the connection (0: at its next byte)."},
			{ProtocolHTTP, Request, "Resets the client's connection before the upstream has a complete request, whatever `bytes` is: the upstream cannot commit."},
			{ProtocolHTTP, Response, "The upstream commits; the client's connection is reset after `bytes` bytes of the reply's body."},
		},
		Examples: []map[string]any{{"direction": "request"}, {"bytes": 10, "direction": "request"}, {"direction": "response"}},
	}
}

// effect implements [effecter].
func (f *Reset) effect(protocol string) Effect { return cutEffect(protocol, f.Direction, f.Bytes) }

// Kind implements [Fault].
func (*Reset) Kind() string { return "reset" }

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
