// Command hanging never answers tools/call: it initializes and lists its
// tools normally, then every handler blocks until the request is cancelled
// or the session ends. It never calls the upstream. The simulator must
// report no_response when its call deadline passes, and must still be able
// to stop the process.
package main

import (
	"context"

	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	s := orders.NewServer("hanging")
	create, list := orders.PlainCreate(), orders.PlainList()
	mcp.AddTool(s, &create, hang[orders.CreateArgs])
	mcp.AddTool(s, &list, hang[orders.ListArgs])
	orders.Run("hanging", func() error { return orders.Serve(s) })
}

// hang blocks until the call is cancelled or the session ends.
func hang[In any](ctx context.Context, _ *mcp.CallToolRequest, _ In) (*mcp.CallToolResult, any, error) {
	<-ctx.Done()
	return nil, nil, ctx.Err()
}
