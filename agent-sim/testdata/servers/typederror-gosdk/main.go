// Command typederror-gosdk returns a Go error from its handlers, like
// rpcerror-gosdk, but registers them with the typed mcp.AddTool, as most
// go-sdk servers do: go-sdk then sends the error as an isError result
// holding its text, not as a JSON-RPC error. Every host shows it to the
// model, which stops; the text does not say the outcome is unknown nor
// whether to retry, so a lost reply trips MC004 and MC005, and never
// MC001.
package main

import (
	"context"

	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	orders.Main("typederror-gosdk", func(up *orders.Client) error {
		s := orders.NewServer("typederror-gosdk")
		create, list := orders.PlainCreate(), orders.PlainList()
		mcp.AddTool(s, &create, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.CreateArgs) (*mcp.CallToolResult, any, error) {
			o, err := up.Create(ctx, a.SKU, a.Qty, "")
			if err != nil {
				return nil, nil, orders.ServiceError("create_order", err)
			}
			return orders.Result(orders.JSON(o), false), nil, nil
		})
		mcp.AddTool(s, &list, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.ListArgs) (*mcp.CallToolResult, any, error) {
			l, err := up.List(ctx, a.SKU)
			if err != nil {
				return nil, nil, orders.ServiceError("list_orders", err)
			}
			return orders.Result(orders.JSON(l), false), nil, nil
		})
		return orders.Serve(s)
	})
}
