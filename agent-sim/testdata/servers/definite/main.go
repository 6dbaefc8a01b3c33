// Command definite reports every create_order failure as definite:
// "failed … Nothing was ordered. Do not retry", with guidance. That is
// right when the upstream refused the dial or answered 503, and wrong
// when the fault left the outcome unknown (a black-holed dial, a hang)
// or the write committed before the error (an error after the
// upstream). It sends an idempotency key, so retries never duplicate.
// It must trip MC004 for the unknown and committed outcomes only.
package main

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	orders.GoSDK{
		Name:    "definite",
		Create:  mcp.Tool{Description: "Place an order.", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
		List:    orders.PlainList(),
		Key:     true,
		Replies: orders.Definite,
	}.Main()
}
