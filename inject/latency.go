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
	// Delay is added to each chunk or exchange.
	Delay Duration `json:"delay"`
	// Jitter varies the delay uniformly within ±Jitter, drawn from the
	// seeded per-connection source.
	Jitter Duration `json:"jitter,omitempty"`
	// Direction is request, response (default) or both.
	Direction Direction `json:"direction,omitempty"`
}

// Kind implements [Fault].
func (*Latency) Kind() string { return "latency" }

func (f *Latency) validate() error {
	if f.Delay == 0 && f.Jitter == 0 {
		return &rules.FieldError{Field: "fault.delay", Msg: "is required (a duration like 250ms)"}
	}
	return checkDirection(f.Direction, true)
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
