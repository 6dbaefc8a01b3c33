package driver

import (
	"context"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// BenchmarkDriverCall measures the driver alone: one tools/call against
// an in-memory go-sdk server, classified, under the stateless protocol and
// the legacy one. Nearly all of the cost is the SDK's JSON decoding.
func BenchmarkDriverCall(b *testing.B) {
	for _, v := range []string{ProtocolStateless, Protocol20251125} {
		b.Run(v, func(b *testing.B) {
			s, err := Connect(context.Background(), inMemory(b, v), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			args := map[string]any{"id": "x"}
			b.ReportAllocs()
			for b.Loop() {
				if o := s.Call(context.Background(), "fail", args); o.Channel != transcript.ChannelToolError {
					b.Fatal(o)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
