// Command slow answers late: every tools/call waits $SLOW_DELAY (a Go
// duration, default 2s) before it calls the upstream and replies as
// careful-gosdk does, whatever the client's deadline — like a server whose
// internal timeouts add up to more than the client's. The wait ignores the
// call's context on purpose. The simulator must record the reply that
// arrives after call_timeout and report MC014, not a retry loop.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	delay := 2 * time.Second
	if v := os.Getenv("SLOW_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > time.Minute {
			fmt.Fprintf(os.Stderr, "slow: SLOW_DELAY %q: want a duration between 0s and 1m\n", v)
			os.Exit(2)
		}
		delay = d
	}
	orders.Main("slow", func(up *orders.Client) error {
		s := orders.NewServer("slow")
		create, list := orders.PlainCreate(), orders.PlainList()
		mcp.AddTool(s, &create, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.CreateArgs) (*mcp.CallToolResult, any, error) {
			time.Sleep(delay)
			o, err := up.Create(context.WithoutCancel(ctx), a.SKU, a.Qty, orders.Key(a.SKU, a.Qty))
			return orders.Result(orders.Careful.Create(a.SKU, o, err)), nil, nil
		})
		mcp.AddTool(s, &list, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.ListArgs) (*mcp.CallToolResult, any, error) {
			time.Sleep(delay)
			l, err := up.List(context.WithoutCancel(ctx), a.SKU)
			return orders.Result(orders.Careful.List(a.SKU, l, err)), nil, nil
		})
		return orders.Serve(s)
	})
}
