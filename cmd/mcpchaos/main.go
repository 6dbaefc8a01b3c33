// Command mcpchaos injects upstream faults beneath an MCP server's tools
// and grades what the server's replies do to an agent.
//
// Run `mcpchaos help` for the commands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes, shared by every command.
const (
	exitOK       = 0
	exitFindings = 1 // findings at or above --fail-on
	exitUsage    = 2 // bad flags, bad scenario or config
	exitFailed   = 3 // the run itself failed
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(code)
}

// stdio carries the process's streams so tests can run commands in
// process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	hidden  bool
	run     func(ctx context.Context, args []string, io stdio) int
}

func commands() []command {
	return []command{
		{name: "demo", summary: "run the built-in demo: faults × host profiles × a careless, a terse and a careful server", run: runDemo},
		{name: "scan", summary: "a first report on any MCP server, with no scenario file: list its tools, call each under faults", run: runScan},
		{name: "run", summary: "run scenario files against your MCP server", run: runScenarios},
		{name: "serve", summary: "run upstream proxies and the control API (staging, game days)", run: runServe},
		{name: "wrap", summary: "run an MCP stdio server for a real host and record its tool calls (game days)", run: runWrap},
		{name: "upstream", summary: "list, add, remove, enable or disable upstreams of a running serve", run: runUpstream},
		{name: "fault", summary: "add, list or remove faults on a running serve", run: runFault},
		{name: "halt", summary: "remove every fault of a running serve at once", run: runHalt},
		{name: "events", summary: "follow what a running serve's proxies do", run: runEvents},
		{name: "gameday", summary: "end a game day with a report of the live sessions a running serve observed", run: runGameday},
		{name: "faults", summary: "list the fault kinds and their parameters", run: runFaults},
		{name: "healthcheck", summary: "exit 0 when a running serve answers /healthz (the image's HEALTHCHECK)", run: runHealthcheck},
		{name: "version", summary: "print the version", run: runVersion},
		{name: "demo-server", hidden: true, run: runDemoServer},
		{name: "demo-carrier", hidden: true, run: runDemoCarrier},
	}
}

func run(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 {
		usage(io.err)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help", "-help":
		if len(args) > 1 {
			return run(ctx, []string{args[1], "--help"}, io)
		}
		usage(io.out)
		return exitOK
	case "--version", "-version", "-v":
		return runVersion(ctx, nil, io)
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, args[1:], io)
		}
	}
	fmt.Fprintf(io.err, "mcpchaos: unknown command %q\n\n", name)
	usage(io.err)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `mcpchaos injects upstream faults beneath an MCP server's tools and grades
what the server's replies do to an agent: does it stop, loop, or duplicate
a side effect?

Usage:
  mcpchaos <command> [flags]

Commands:
`)
	for _, c := range commands() {
		if !c.hidden {
			fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprint(w, `
Flags go before or after a command's arguments; "--" ends them.
Run "mcpchaos <command> --help" for a command's flags, "mcpchaos --version"
for the version.
`)
}
