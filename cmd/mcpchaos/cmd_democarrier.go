package main

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/mcpchaos/mcpchaos/demo"
)

// runDemoCarrier is a hidden command: the demo's carrier API as a process
// of its own, so that it can run as a container next to the demo server
// and mcpchaos (integration/ does). `mcpchaos demo` never needs it: the
// scenarios start an in-process carrier (builtin:carrier).
func runDemoCarrier(ctx context.Context, args []string, std stdio) int {
	fs := newFlags("demo-carrier", "[--listen ADDR]", `
Serve the demo carrier API (POST /shipments, GET /shipments, GET /stats)
until interrupted. Its state is in memory and starts empty.`, std)
	listen := fs.String("listen", "127.0.0.1:9000", "address to listen on (0.0.0.0:PORT in a container)")
	if done, code := parse(fs, args, std); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(std.err, "mcpchaos demo-carrier: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(std.err, "mcpchaos demo-carrier: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(std.err, "mcpchaos demo-carrier: listening on %s\n", ln.Addr())
	if err := demo.NewCarrier().Serve(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(std.err, "mcpchaos demo-carrier: %v\n", err)
		return exitFailed
	}
	return exitOK
}
