// Command leaky gives the careful server's guidance but appends what a
// debugging developer would want to see: the raw Go error (upstream URL
// with host:port), the SQL it "ran" and a SQLSTATE. Its channel, guidance
// and idempotency are right, so the one thing it must trip is MC007
// (leak: host:port, SQL fragment, SQLSTATE).
package main

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	orders.GoSDK{
		Name: "leaky",
		Create: mcp.Tool{
			Description: "Place an order. Repeating the call with the same sku and qty never places a second order.",
			Annotations: &mcp.ToolAnnotations{IdempotentHint: true},
		},
		List: mcp.Tool{
			Description: "List the orders for a SKU. Read-only.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		},
		Key:     true,
		Replies: orders.Replies{Create: leak(orders.Careful.Create), List: leak(orders.Careful.List)},
	}.Main()
}

// leak appends details to reply's error texts.
func leak[T any](reply orders.Reply[T]) orders.Reply[T] {
	return func(sku string, v T, err error) (string, bool) {
		text, isError := reply(sku, v, err)
		if err != nil {
			text += details(sku, err)
		}
		return text, isError
	}
}

// details is the leak: the raw error names the upstream's host:port, and
// the rest is what a database-backed service's error typically carries.
func details(sku string, err error) string {
	return fmt.Sprintf("\n\nDetails: %v; query: SELECT * FROM orders WHERE sku = '%s' failed: "+
		"pq: could not serialize access due to concurrent update (SQLSTATE 40001)", err, sku)
}
