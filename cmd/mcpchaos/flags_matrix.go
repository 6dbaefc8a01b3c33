package main

import (
	"flag"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
)

// matrixFlags are the flags that shape a run's matrix, shared by run and
// scan: who plays the agent, which hosts, how many at once, which shard.
type matrixFlags struct {
	personas, hosts, shard string
	concurrency            int
}

func (m *matrixFlags) register(fs *flag.FlagSet, concurrency int) {
	fs.StringVar(&m.personas, "persona", "", "comma-separated personas to run instead of the scenarios' (diligent, stubborn, literal)")
	fs.StringVar(&m.hosts, "host", "", "comma-separated host profiles to run instead of the scenarios' (swallow, generic, raw)")
	fs.IntVar(&m.concurrency, "concurrency", concurrency, concurrencyUsage)
	fs.StringVar(&m.shard, "shard", "", "run one part of the matrix: i/n runs every n-th run from the i-th, so n CI workers split it (a run keeps its seed)")
}

// apply sets opts' personas, hosts and shard; the error is a bad --shard.
func (m *matrixFlags) apply(opts *agentsim.RunOptions) error {
	i, n, err := parseShard(m.shard)
	if err != nil {
		return err
	}
	opts.Personas, opts.Hosts = splitList(m.personas), splitList(m.hosts)
	opts.Shard, opts.Shards = i, n
	return nil
}
