// Package load is the benchmark's load generator: a minimal HTTP/1.1
// client over raw TCP (keep-alive, or a new connection per request), the
// bulk transfer client, and helpers that hold many idle or live
// connections. It is written against the socket rather than net/http so
// that the generator, which shares the machine's cores with the proxy
// under test, spends as little CPU per request as it can.
package load

import "time"

// Sampler returns a cumulative CPU time of the process under test; load
// functions call it at the start and end of their measurement window. A
// nil Sampler measures nothing.
type Sampler func() (time.Duration, error)

func (s Sampler) sample() (time.Duration, error) {
	if s == nil {
		return 0, nil
	}
	return s()
}
