// Command crashonce dies on its first tools/call: the handler panics
// before touching the upstream, go-sdk does not recover it, and the
// process exits with status 2 and the panic on stderr. With
// $CRASH_ONCE_FILE set, only a process that finds no such file dies (it
// creates the file first), so a restarted server works: the case of a
// host that reconnects once. Without it every process dies on its first
// call. The simulator must report MC012 with the panic as evidence and
// stop calling a dead process.
package main

import (
	"context"
	"errors"
	"os"

	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	orders.Main("crashonce", func(up *orders.Client) error {
		s := orders.NewServer("crashonce")
		create, list := orders.PlainCreate(), orders.PlainList()
		mcp.AddTool(s, &create, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.CreateArgs) (*mcp.CallToolResult, any, error) {
			crashFirstTime()
			o, err := up.Create(ctx, a.SKU, a.Qty, orders.Key(a.SKU, a.Qty))
			return orders.Result(orders.Careful.Create(a.SKU, o, err)), nil, nil
		})
		mcp.AddTool(s, &list, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.ListArgs) (*mcp.CallToolResult, any, error) {
			crashFirstTime()
			l, err := up.List(ctx, a.SKU)
			return orders.Result(orders.Careful.List(a.SKU, l, err)), nil, nil
		})
		return orders.Serve(s)
	})
}

// crashFirstTime panics unless $CRASH_ONCE_FILE names a file that exists,
// creating it first.
func crashFirstTime() {
	marker := os.Getenv("CRASH_ONCE_FILE")
	if marker != "" {
		if _, err := os.Stat(marker); err == nil {
			return
		}
		if err := os.WriteFile(marker, []byte("crashed once\n"), 0o644); err != nil {
			panic(err)
		}
	}
	panic(errors.New("crashonce: order book not loaded (nil map)"))
}
