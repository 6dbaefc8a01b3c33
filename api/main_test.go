package api_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpchaos/mcpchaos/demo"
)

// TestMain lets the test binary stand in for mcpchaos: scenarios run
// through POST /v1/runs start "{{ mcpchaos }} demo-server", which is this
// binary (RunOptions.Self), so it must then serve the demo MCP server over
// stdio instead of running the tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "demo-server" {
		os.Exit(demoServer(os.Args[2:]))
	}
	// Every goroutine the server starts is owned and waited for: none
	// may outlive the tests.
	goleak.VerifyTestMain(m)
}

func demoServer(args []string) int {
	fs := flag.NewFlagSet("demo-server", flag.ContinueOnError)
	variant := fs.String("variant", "careful", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	v, err := demo.ParseVariant(*variant)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := demo.ServeStdio(ctx, v, os.Getenv("CARRIER_URL"), os.Stdin, os.Stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	return 0
}
