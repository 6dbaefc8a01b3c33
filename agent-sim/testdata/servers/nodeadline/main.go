// Command nodeadline is careful-gosdk without a deadline on its upstream
// requests: its replies are the careful ones, but a request the upstream
// (or a fault) holds lasts as long as the hold or the tool call itself,
// so the client's call_timeout passes first and the careful "may or may
// not have been placed" never arrives in time. The simulator must report
// MC013 naming the upstream, not a retry loop.
package main

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	orders.GoSDK{
		Name: "nodeadline",
		Create: mcp.Tool{
			Description: "Place an order. Repeating the call with the same sku and qty never places a second order. " +
				"If the outcome is unknown, check with list_orders.",
			Annotations: &mcp.ToolAnnotations{IdempotentHint: true},
		},
		List: mcp.Tool{
			Description: "List the orders for a SKU. Read-only; use it to check whether a create_order took effect.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		},
		Key:        true,
		NoDeadline: true,
		Replies:    orders.Careful,
	}.Main()
}
