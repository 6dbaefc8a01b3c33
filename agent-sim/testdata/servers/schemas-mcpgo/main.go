// Command schemas-mcpgo is schemas-gosdk on github.com/mark3labs/mcp-go,
// which does not apply a tool's schema: its handlers decode the
// arguments strictly and check every rule of the schema themselves, as
// an mcp-go server's author writes it.
package main

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
)

func main() {
	orders.Run("schemas-mcpgo", func() error {
		s := server.NewMCPServer("schemas-mcpgo", "1.0.0", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewToolWithRawSchema("create_order", "Place an order.", json.RawMessage(orders.RichCreateSchema)),
			func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in orders.RichOrder
				if err := decode(req, &in); err != nil {
					return mcp.NewToolResultError("invalid arguments: " + err.Error()), nil
				}
				if err := in.Check(); err != nil {
					return mcp.NewToolResultError("invalid arguments: " + err.Error()), nil
				}
				return mcp.NewToolResultText(orders.Echo("create_order", in)), nil
			})
		list := mcp.NewToolWithRawSchema("list_orders", "List orders.", json.RawMessage(orders.RichListSchema))
		ro, idem := true, true
		list.Annotations = mcp.ToolAnnotation{ReadOnlyHint: &ro, IdempotentHint: &idem}
		s.AddTool(list, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in orders.RichQuery
			if err := decode(req, &in); err != nil {
				return mcp.NewToolResultError("invalid arguments: " + err.Error()), nil
			}
			if err := in.Check(); err != nil {
				return mcp.NewToolResultError("invalid arguments: " + err.Error()), nil
			}
			return mcp.NewToolResultText(orders.Echo("list_orders", in)), nil
		})
		return server.ServeStdio(s)
	})
}

// decode reads the arguments into v, refusing unknown fields and wrong
// types.
func decode(req mcp.CallToolRequest, v any) error {
	b, err := json.Marshal(req.GetArguments())
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
