package agentsim

import (
	"context"
	"testing"
)

// BenchmarkDriverCall measures the driver alone: one tools/call against
// an in-memory go-sdk server, classified, under the stateless protocol and
// the legacy one. Nearly all of the cost is the SDK's JSON decoding.
func BenchmarkDriverCall(b *testing.B) {
	for _, v := range []string{ProtocolStateless, Protocol20251125} {
		b.Run(v, func(b *testing.B) {
			s, err := Connect(context.Background(), inMemory(b, v), DriverOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			args := map[string]any{"id": "x"}
			b.ReportAllocs()
			for b.Loop() {
				if o := s.Call(context.Background(), "fail", args); o.Channel != ChannelToolError {
					b.Fatal(o)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// BenchmarkAgentLoop measures the whole simulator per call: a fresh fault
// layer and session per run, then the loop (host, features, persona) and
// the judge, against an in-memory server whose protocol errors the
// swallow host hides, so every run spends its budget of 8 calls.
func BenchmarkAgentLoop(b *testing.B) {
	const budget = 8
	src := "server: {url: http://unused}\nagent: {hosts: [swallow], budget: 8}\nsteps: [{tool: rpc0, args: {id: x}}]\n"
	sc, err := ParseScenario("bench.yaml", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	calls := 0
	b.ReportAllocs()
	for b.Loop() {
		run := *sc
		run.Server = inMemory(b, "")
		rep, err := Run(context.Background(), []*Scenario{&run}, RunOptions{Concurrency: 1})
		if err != nil || rep.Runs[0].Error != "" || len(rep.Runs[0].Calls) != budget {
			b.Fatalf("%v %+v", err, rep.Runs[0])
		}
		calls += budget
	}
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
}
