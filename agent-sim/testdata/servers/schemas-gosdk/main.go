// Command schemas-gosdk is a go-sdk server whose tools' input schemas use
// nested objects, arrays, enums, patterns and required fields
// (orders.RichCreateSchema): the go-sdk validates every call against
// them before the handler runs. It calls no upstream; it echoes what it
// accepted.
package main

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	orders.Run("schemas-gosdk", func() error {
		s := mcp.NewServer(&mcp.Implementation{Name: "schemas-gosdk", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "create_order", Description: "Place an order.", InputSchema: schema(orders.RichCreateSchema)},
			func(_ context.Context, _ *mcp.CallToolRequest, in orders.RichOrder) (*mcp.CallToolResult, any, error) {
				return text(orders.Echo("create_order", in)), nil, nil
			})
		mcp.AddTool(s, &mcp.Tool{Name: "list_orders", Description: "List orders.", InputSchema: schema(orders.RichListSchema),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
			func(_ context.Context, _ *mcp.CallToolRequest, in orders.RichQuery) (*mcp.CallToolResult, any, error) {
				return text(orders.Echo("list_orders", in)), nil, nil
			})
		return s.Run(context.Background(), &mcp.StdioTransport{})
	})
}

func schema(src string) *jsonschema.Schema {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		panic(err)
	}
	return &s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
