// Command duplicating is noguidance with a false promise: create_order is
// annotated idempotentHint: true, but sends no idempotency key, so a retry
// after a lost reply commits a second order. It must trip MC003 (duplicated
// side effect) and MC009 (annotation contradicts behaviour), on top of
// noguidance's MC005/MC006.
package main

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	orders.GoSDK{
		Name: "duplicating",
		// The false promise: idempotentHint, but no idempotency key, so
		// every POST that reaches the upstream commits.
		Create:  mcp.Tool{Description: "Place an order.", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
		List:    orders.PlainList(),
		Replies: orders.NoGuidance,
	}.Main()
}
