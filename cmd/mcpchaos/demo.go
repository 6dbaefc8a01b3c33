package main

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path"
	"strings"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/demo"
	"github.com/mcpchaos/mcpchaos/examples"
)

func runDemo(ctx context.Context, args []string, io stdio) int {
	fs := newFlags("demo", "[flags]", `
Run the built-in demo: the faults timeout, response_lost, unreachable and
partial_write on a carrier API beneath a careless, a terse and a careful
shipping MCP server, under the host profiles swallow, generic and raw, with
the diligent persona (and the stubborn one for the terse server). Print one
table: how many calls until the agent stopped, whether it converged, the
shipments intended and committed, and the findings.

Everything runs on this machine: the carrier, the servers (this binary,
re-executed over stdio) and the proxies. The scenarios are the files of
examples/demo/; "mcpchaos run examples/demo/" gives the same report.`, io)
	// The demo shows findings on purpose; they are not a failure.
	rf := reportFlags{failOn: "never"}
	rf.register(fs)
	variant := fs.String("variant", "", "comma-separated server variants to run (careless, terse, careful; default all)")
	fault := fs.String("fault", "", "comma-separated faults to run (timeout, response_lost, unreachable, partial_write; default all)")
	conc := fs.Int("concurrency", 0, concurrencyUsage)
	if done, code := parse(fs, args, io); done {
		return code
	}
	rf.failOnSet = true
	if err := rf.validate(); err != nil {
		fmt.Fprintf(io.err, "mcpchaos demo: %v\n", err)
		return exitUsage
	}
	scenarios, err := demoScenarios(splitList(*variant), splitList(*fault))
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos demo: %v\n", err)
		return exitUsage
	}
	opts, err := builtinRunOptions(rf.seed, *conc)
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos demo: %v\n", err)
		return exitFailed
	}
	return runAndReport(ctx, scenarios, opts, rf, io)
}

// builtinRunOptions are run options with the built-in targets and this
// binary available to scenarios.
func builtinRunOptions(seed uint64, concurrency int) (agentsim.RunOptions, error) {
	self, err := os.Executable()
	if err != nil {
		return agentsim.RunOptions{}, fmt.Errorf("finding this binary to run the demo server: %w", err)
	}
	return agentsim.RunOptions{
		Seed:        seed,
		Concurrency: concurrency,
		Self:        self,
		Builtins:    map[string]agentsim.Builtin{"carrier": demo.StartCarrier},
	}, nil
}

// demoScenarios parses the embedded demo scenarios, keeping those whose
// variant and fault are selected.
func demoScenarios(variants, faults []string) ([]*scenario.Scenario, error) {
	entries, err := fs.ReadDir(examples.Demo, "demo")
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	var out []*scenario.Scenario
	for _, e := range entries {
		base := strings.TrimSuffix(e.Name(), ".yaml")
		v, f, _ := strings.Cut(base, "-")
		known["variant "+v], known["fault "+f] = true, true
		if !selected(variants, v) || !selected(faults, f) {
			continue
		}
		name := path.Join("demo", e.Name())
		data, err := fs.ReadFile(examples.Demo, name)
		if err != nil {
			return nil, err
		}
		sc, err := scenario.Parse("examples/"+name, data)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	for _, v := range variants {
		if !known["variant "+v] {
			return nil, fmt.Errorf("--variant: %q is not careless, terse or careful", v)
		}
	}
	for _, f := range faults {
		if !known["fault "+f] {
			return nil, fmt.Errorf("--fault: %q is not timeout, response_lost, unreachable or partial_write", f)
		}
	}
	return out, nil
}

func selected(list []string, v string) bool {
	if len(list) == 0 {
		return true
	}
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// runDemoServer is the hidden command the demo scenarios start: the demo
// shipping MCP server over stdio, its carrier at $CARRIER_URL.
func runDemoServer(ctx context.Context, args []string, io stdio) int {
	fs := newFlags("demo-server", "--variant careless|terse|careful [--http ADDR]", "Serve the demo shipping MCP server over stdio, or over Streamable HTTP at /mcp with --http (how it runs as a container of its own); its carrier API is at $CARRIER_URL.", io)
	variant := fs.String("variant", "careful", "careless, terse or careful")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on this address (0.0.0.0:8080 in a container) instead of stdio")
	if done, code := parse(fs, args, io); done {
		return code
	}
	v, err := demo.ParseVariant(*variant)
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos demo-server: %v\n", err)
		return exitUsage
	}
	url := os.Getenv("CARRIER_URL")
	if url == "" {
		fmt.Fprintln(io.err, "mcpchaos demo-server: CARRIER_URL is not set")
		return exitUsage
	}
	if *httpAddr != "" {
		return serveDemoHTTP(ctx, v, url, *httpAddr, io)
	}
	if err := demo.ServeStdio(ctx, v, url, io.in, io.out); err != nil && ctx.Err() == nil {
		fmt.Fprintf(io.err, "mcpchaos demo-server: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// serveDemoHTTP serves the demo server over Streamable HTTP until ctx is
// done (the container is stopped).
func serveDemoHTTP(ctx context.Context, v demo.Variant, carrierURL, addr string, io stdio) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos demo-server: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(io.err, "mcpchaos demo-server: %s server on http://%s/mcp, carrier at %s\n", v, ln.Addr(), carrierURL)
	if err := demo.ServeHTTP(ctx, v, carrierURL, ln); err != nil {
		fmt.Fprintf(io.err, "mcpchaos demo-server: %v\n", err)
		return exitFailed
	}
	return exitOK
}
