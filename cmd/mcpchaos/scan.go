package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/examples"
)

func runScan(ctx context.Context, args []string, std stdio) int {
	writes, reads := defaultFaultNames()
	fs := newFlags("scan", "[flags] -- COMMAND [ARG...]  |  mcpchaos scan [flags] --url URL", `
A first report on any MCP server, with no scenario file: start the
server (a stdio COMMAND, or a Streamable HTTP server at --url), list its
tools, generate arguments for each one from its input schema, and run a
matrix of faults on the upstreams given with --upstream (point the
server at them with --env or --file):

  tools that write:      `+writes+`
  tools that only read:  `+reads+`

and one deliberately invalid call per tool, for the input-validation
check.

A tool is a write or a read by its annotations (readOnlyHint,
destructiveHint, idempotentHint), else by the verb in its name (see
docs/scan.md); --write and --read override. Destructive tools are listed
and skipped unless --allow-destructive.

--save FILE writes the scenario scan ran: "mcpchaos run FILE" replays it
with the same report, and it is where to start editing.

Exit codes: 0 no finding at or above --fail-on; 1 findings; 2 usage
error; 3 the run itself failed (the server would not start).`, std)
	var rf reportFlags
	rf.register(fs)
	var mf matrixFlags
	mf.register(fs, 0)
	var sf scanFlags
	sf.register(fs)
	if done, code := parse(fs, args, std); done {
		return code
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(std.err, "mcpchaos scan: %v\n", err)
		return code
	}
	if err := rf.validate(); err != nil {
		return fail(exitUsage, err)
	}
	if _, _, err := parseShard(mf.shard); err != nil {
		return fail(exitUsage, err)
	}
	plan, err := sf.plan(fs.Args(), mf)
	if err != nil {
		return fail(exitUsage, err)
	}
	opts, err := builtinRunOptions(rf.seed, mf.concurrency)
	if err != nil {
		return fail(exitFailed, err)
	}
	probe, err := plan.discoveryScenario()
	if err != nil {
		return fail(exitUsage, err)
	}
	tools, err := agentsim.ListTools(ctx, probe, opts)
	if err != nil {
		if errors.Is(err, agentsim.ErrUsage) {
			return fail(exitUsage, err)
		}
		err = fmt.Errorf("starting the server to list its tools: %w", err)
		if sf.url != "" && len(sf.headers) == 0 && refusedAccess(err) {
			err = fmt.Errorf("%w (a server that wants a token gets it with --header \"Authorization: Bearer ...\")", err)
		}
		return fail(exitFailed, err)
	}
	calls, err := plan.calls(tools, rf.seed)
	if err != nil {
		return fail(exitUsage, err)
	}
	printFound(std, tools, calls)
	doc, err := plan.document(calls)
	if err != nil {
		return fail(exitUsage, err)
	}
	sc, err := scenario.Parse(scanName+".yaml", doc)
	if err != nil {
		return fail(exitUsage, fmt.Errorf("the generated scenario does not parse (please report this): %w", err))
	}
	if sf.save != "" {
		if err := os.WriteFile(sf.save, doc, 0o644); err != nil {
			return fail(exitUsage, err)
		}
		fmt.Fprintf(std.err, "scenario written to %s; \"mcpchaos run %s\" replays it\n", sf.save, sf.save)
	}
	if len(sc.Cells()) == 0 || len(sc.Matrix.Tools) == 0 {
		return fail(exitUsage, errors.New("no tool to call: every tool is skipped"))
	}
	if err := mf.apply(&opts); err != nil {
		return fail(exitUsage, err)
	}
	// The scenario names its personas and hosts, so that the saved file
	// replays the same matrix: no override is needed.
	opts.Personas, opts.Hosts = nil, nil
	rf.failOnSet = flagSet(fs, "fail-on")
	return runAndReport(ctx, []*scenario.Scenario{sc}, opts, rf, std)
}

// printFound says what the server listed and what scan will do with each
// tool, on stderr: stdout is the report's.
func printFound(std stdio, tools []transcript.Tool, calls []scanCall) {
	fmt.Fprintf(std.err, "the server lists %d tools:\n", len(tools))
	for _, c := range calls {
		kind := "read "
		if c.class.Write {
			kind = "write"
		}
		state := ""
		if c.skip != "" {
			state = "  SKIPPED: " + c.skip
		}
		fmt.Fprintf(std.err, "  %-22s %s  (%s)%s\n", c.tool.Name, kind, c.class.Reason, state)
		fmt.Fprintf(std.err, "      input: %s\n", scenario.DescribeSchema(c.tool.InputSchema))
		if c.skip == "" {
			fmt.Fprintf(std.err, "      args:  %s\n", compactJSON(c.args))
			if c.invalidArgs != nil {
				fmt.Fprintf(std.err, "      invalid call: %s (%s)\n", compactJSON(c.invalidArgs), c.broke)
			}
		}
	}
}

// defaultFaultNames lists the default faults for writes and for reads,
// for the help text.
func defaultFaultNames() (writes, reads string) {
	var w, r []string
	for _, f := range examples.ScanFaults() {
		if f.Write {
			w = append(w, f.Name)
		}
		if f.Read {
			r = append(r, f.Name)
		}
	}
	return strings.Join(w, ", "), strings.Join(r, ", ")
}

// refusedAccess reports whether err reads as the server's HTTP 401 or 403
// (the SDK names the status text, not the code).
func refusedAccess(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, http.StatusText(http.StatusUnauthorized)) || strings.Contains(msg, http.StatusText(http.StatusForbidden))
}
