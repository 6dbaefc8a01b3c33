package inject

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// Latency delays traffic: every chunk of a TCP stream, or an HTTP request
// before it is forwarded and/or its reply before it is delivered.
type Latency struct {
	Delay Duration `json:"delay" doc:"added to each chunk (tcp) or to the request and/or the reply (http)"`
	// Jitter is drawn from the seeded per-connection source.
	Jitter    Duration  `json:"jitter,omitempty" doc:"varies the delay uniformly within ±jitter"`
	Direction Direction `json:"direction,omitempty" choices:"request,response,both" doc:"which way is delayed"`
}

func latencyKind() KindInfo {
	return KindInfo{
		Name: "latency", Summary: "delay bytes or requests, with jitter, in either direction", TCP: true, HTTP: true,
		New: func() Fault { return &Latency{Direction: Response} },
		Behavior: []Behavior{
			{ProtocolTCP, "", "Delays each chunk read in the direction by `delay` (± `jitter`) counted from when the chunk arrived, so a bulk stream is shifted by the delay, not slowed by it once per chunk. Reading goes on meanwhile; up to 1 MiB per direction waits in the delay line."},
			{ProtocolHTTP, Request, "Delays the request before it is forwarded."},
			{ProtocolHTTP, Response, "Delays the reply before it is delivered."},
			{ProtocolHTTP, Both, "Delays both: the round trip takes at least twice `delay`."},
		},
		Examples: []map[string]any{{"delay": "250ms", "direction": "both"}},
	}
}

// effect implements [effecter]: timing only.
func (*Latency) effect(string) Effect { return Effect{Outcome: OutcomeDelivered, ServerKnows: true} }

// Kind implements [Fault].
func (*Latency) Kind() string { return "latency" }

func (f *Latency) validate() error {
	if f.Delay == 0 && f.Jitter == 0 {
		return &rules.FieldError{Field: "fault.delay", Msg: "is required (a duration like 250ms)"}
	}
	return nil
}

func (f *Latency) wait(r *rand.Rand) time.Duration {
	d := time.Duration(f.Delay)
	// Capping j keeps 2*j+1 from overflowing (Int64N panics on a
	// non-positive bound) for absurd jitters like "2000000h".
	if j := min(int64(f.Jitter), math.MaxInt64/4); j > 0 {
		d = time.Duration(min(int64(d), math.MaxInt64/4)) + time.Duration(r.Int64N(2*j+1)-j)
	}
	return max(d, 0)
}

// Chunk implements [StreamFault]: each chunk goes into the stream's delay
// line, due its delay after it was read, so a bulk stream is late by the
// delay once, not once per chunk.
func (f *Latency) Chunk(s Stream, p []byte) error {
	return s.Delay(p, f.wait(s.Rand()))
}

// Exchange implements [ExchangeFault].
func (f *Latency) Exchange(x Exchange) error {
	if f.Direction.covers(Request) {
		if err := x.Sleep(f.wait(x.Rand())); err != nil {
			return err
		}
	}
	resp, err := x.Forward(ForwardOptions{})
	if err != nil {
		return err
	}
	// Once, before the head reaches the client: the body then streams.
	if f.Direction.covers(Response) {
		if err := x.Sleep(f.wait(x.Rand())); err != nil {
			return err
		}
	}
	return x.Respond(resp, RespondOptions{})
}
