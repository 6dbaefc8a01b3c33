package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
)

// checkScenarios is run --check: each scenario against its server's
// tools, one line per scenario on stdout, the problems on stderr. Exit 2
// when a scenario does not fit, else 3 when a server could not be
// checked, else 0.
func checkScenarios(ctx context.Context, scenarios []*scenario.Scenario, opts agentsim.RunOptions, std stdio) int {
	results, err := agentsim.Check(ctx, scenarios, opts)
	if errors.Is(err, agentsim.ErrUsage) {
		fmt.Fprintf(std.err, "mcpchaos run: %v\n", err)
		return exitUsage
	}
	code := exitOK
	for _, r := range results {
		switch {
		case r.Scenario == nil: // not reached: cancelled
		case r.Err == nil:
			fmt.Fprintf(std.out, "ok   %s (%s): the server lists %s\n", r.Scenario.File, r.Scenario.Name, toolList(r.Tools))
		case errors.Is(r.Err, scenario.ErrMismatch):
			fmt.Fprintf(std.out, "FAIL %s (%s)\n", r.Scenario.File, r.Scenario.Name)
			printLines(std, r.Err.Error())
			code = exitUsage
		default:
			fmt.Fprintf(std.out, "FAIL %s (%s): not checked\n", r.Scenario.File, r.Scenario.Name)
			fmt.Fprintf(std.err, "mcpchaos: %s: %v\n", r.Scenario.File, r.Err)
			if code == exitOK {
				code = exitFailed
			}
		}
	}
	if err != nil {
		fmt.Fprintf(std.err, "mcpchaos: %v\n", err)
		return exitFailed
	}
	return code
}

func toolList(names []string) string {
	if len(names) == 0 {
		return "no tools"
	}
	return strings.Join(names, ", ")
}

// printLines writes each line of msg (one problem a line, as
// errors.Join makes them) to stderr after "mcpchaos: ".
func printLines(std stdio, msg string) {
	for _, l := range strings.Split(msg, "\n") {
		fmt.Fprintf(std.err, "mcpchaos: %s\n", l)
	}
}
