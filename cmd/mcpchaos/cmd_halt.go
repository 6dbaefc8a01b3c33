package main

import (
	"context"
	"fmt"
	"strings"
)

func runHalt(ctx context.Context, args []string, std stdio) int {
	fs := newFlags("halt", "[flags]", `
Remove every fault and enable every disabled upstream of the server at
--api: connections held by a fault heal at once. The game day's stop
button.`, std)
	var af apiFlags
	af.register(fs)
	pos, done, code := parseInterleaved(fs, args, std)
	if done {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(std.err, "mcpchaos halt: unexpected argument %q\n", pos[0])
		return exitUsage
	}
	cl, err := af.client()
	if err != nil {
		return apiFail(std, "halt", err)
	}
	res, err := cl.Halt(ctx)
	if err != nil {
		return apiFail(std, "halt", err)
	}
	if af.json {
		return printJSON(std.out, res)
	}
	fmt.Fprintf(std.out, "halted: %d fault(s) removed", res.FaultsRemoved)
	if len(res.UpstreamsEnabled) > 0 {
		fmt.Fprintf(std.out, "; upstreams re-enabled: %s", strings.Join(res.UpstreamsEnabled, ", "))
	}
	fmt.Fprintln(std.out)
	for _, e := range res.Errors {
		fmt.Fprintf(std.err, "mcpchaos halt: %s\n", e)
	}
	if len(res.Errors) > 0 {
		return exitFailed
	}
	return exitOK
}
