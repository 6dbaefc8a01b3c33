// Command upserting applies orders idempotently: create_order is a PUT of
// /orders/{id}, the id derived from sku and qty, annotated
// idempotentHint: true, and keeps the annotation — every retry replaces
// the same order. Its failure text is noguidance's "order failed", so a
// lost reply is retried: the upstream gets several identical PUTs and
// still holds one order. It must not trip MC003 or MC009.
package main

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	orders.GoSDK{
		Name:    "upserting",
		Create:  mcp.Tool{Description: "Place an order.", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
		List:    orders.PlainList(),
		Upsert:  true,
		Replies: orders.NoGuidance,
	}.Main()
}
