package agentsim

import (
	"context"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
)

// BenchmarkAgentLoop measures the whole simulator per call: a fresh fault
// layer and session per run, then the loop (host, features, persona) and
// the judge, against an in-memory server whose protocol errors the
// swallow host hides, so every run spends its budget of 8 calls.
func BenchmarkAgentLoop(b *testing.B) {
	const budget = 8
	src := "server: {url: http://unused}\nagent: {hosts: [swallow], budget: 8}\nsteps: [{tool: rpc0, args: {id: x}}]\n"
	sc, err := scenario.Parse("bench.yaml", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	calls := 0
	b.ReportAllocs()
	for b.Loop() {
		run := *sc
		run.Server = driver.ServerSpec{Transport: simtest.InMemory(b)}
		rep, err := Run(context.Background(), []*scenario.Scenario{&run}, RunOptions{Concurrency: 1})
		if err != nil || rep.Runs[0].Error != "" || len(rep.Runs[0].Calls) != budget {
			b.Fatalf("%v %+v", err, rep.Runs[0])
		}
		calls += budget
	}
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
}
