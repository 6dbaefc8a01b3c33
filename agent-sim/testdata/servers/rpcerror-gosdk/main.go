// Command rpcerror-gosdk reports every upstream failure as a JSON-RPC error:
// its handlers are registered with the raw Server.AddTool and return a Go
// error, which go-sdk sends as an error object with code 0. The tool ran
// and had a verdict, so this trips MC001; under the swallow host the model
// sees nothing and retries to its budget (MC002), and its writes are not
// idempotent, so a lost reply duplicates the order (MC003). The messages
// leak nothing, so it does not trip MC007.
package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	orders.Main("rpcerror-gosdk", func(up *orders.Client) error {
		s := orders.NewServer("rpcerror-gosdk")
		s.AddTool(&mcp.Tool{
			Name:        "create_order",
			Description: "Place an order.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}},"required":["sku","qty"]}`),
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a orders.CreateArgs
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, fmt.Errorf("create_order: bad arguments")
			}
			o, err := up.Create(ctx, a.SKU, a.Qty, "")
			if err != nil {
				return nil, orders.ServiceError("create_order", err)
			}
			return orders.Result(orders.JSON(o), false), nil
		})
		s.AddTool(&mcp.Tool{
			Name:        "list_orders",
			Description: "List the orders for a SKU.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a orders.ListArgs
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, fmt.Errorf("list_orders: bad arguments")
			}
			l, err := up.List(ctx, a.SKU)
			if err != nil {
				return nil, orders.ServiceError("list_orders", err)
			}
			return orders.Result(orders.JSON(l), false), nil
		})
		return orders.Serve(s)
	})
}
