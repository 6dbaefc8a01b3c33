// Command careful-gosdk is the corpus's well-behaved server on the official
// go-sdk: every upstream failure is a tool error (isError) that states what
// is true, names the next tool, says whether to retry and leaks nothing;
// create_order sends an Idempotency-Key derived from its arguments, so its
// idempotentHint is true. It must trip no error-severity finding.
package main

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	orders.GoSDK{
		Name: "careful-gosdk",
		Create: mcp.Tool{
			Description: "Place an order. Repeating the call with the same sku and qty never places a second order. " +
				"If the outcome is unknown, check with list_orders.",
			Annotations: &mcp.ToolAnnotations{IdempotentHint: true},
		},
		List: mcp.Tool{
			Description: "List the orders for a SKU. Read-only; use it to check whether a create_order took effect.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		},
		Key:     true,
		Replies: orders.Careful,
	}.Main()
}
