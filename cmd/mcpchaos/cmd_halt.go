package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

func runHalt(ctx context.Context, args []string, std stdio) int {
	a := newAPICommand(commandContext{ctx: ctx, std: std, name: "halt"}, "[flags]", `
Remove every fault and enable every disabled upstream of the server at
--api: connections held by a fault heal at once. The game day's stop
button.`)
	cl, _, code := a.start(args, noArgs)
	if cl == nil {
		return code
	}
	res, err := cl.Halt(ctx)
	return a.reply(err, res, func(w io.Writer) int {
		fmt.Fprintf(w, "halted: %d fault(s) removed", res.FaultsRemoved)
		if len(res.UpstreamsEnabled) > 0 {
			fmt.Fprintf(w, "; upstreams re-enabled: %s", strings.Join(res.UpstreamsEnabled, ", "))
		}
		fmt.Fprintln(w)
		for _, e := range res.Errors {
			fmt.Fprintf(std.err, "mcpchaos halt: %s\n", e)
		}
		if len(res.Errors) > 0 {
			return exitFailed
		}
		return exitOK
	})
}
