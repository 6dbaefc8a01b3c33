package orders

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDK is a corpus server on the official go-sdk whose tools each make
// one upstream request: what sets one apart is how it presents its two
// tools and what it replies.
type GoSDK struct {
	Name string
	// Create and List are the tools as tools/list shows them; the names
	// are filled in, and go-sdk infers the input schemas from CreateArgs
	// and ListArgs.
	Create, List mcp.Tool
	// Key makes create_order send an Idempotency-Key derived from sku and
	// qty (see Key), so that a retried call commits once.
	Key bool
	// NoDeadline drops the upstream client's own deadline (see
	// Client.WithoutDeadline).
	NoDeadline bool
	// Upsert makes create_order apply the order with PUT /orders/{id},
	// the id derived from sku and qty (see Key): an idempotent write
	// that a retry repeats without a second order.
	Upsert bool
	Replies
}

// Main serves the server (see Main).
func (g GoSDK) Main() {
	Main(g.Name, func(up *Client) error {
		if g.NoDeadline {
			up = up.WithoutDeadline()
		}
		s := NewServer(g.Name)
		create, list := g.Create, g.List
		create.Name, list.Name = "create_order", "list_orders"
		mcp.AddTool(s, &create, func(ctx context.Context, _ *mcp.CallToolRequest, a CreateArgs) (*mcp.CallToolResult, any, error) {
			key := ""
			if g.Key {
				key = Key(a.SKU, a.Qty)
			}
			var o Order
			var err error
			if g.Upsert {
				o, err = up.Put(ctx, Key(a.SKU, a.Qty), a.SKU, a.Qty)
			} else {
				o, err = up.Create(ctx, a.SKU, a.Qty, key)
			}
			return Result(g.Replies.Create(a.SKU, o, err)), nil, nil
		})
		mcp.AddTool(s, &list, func(ctx context.Context, _ *mcp.CallToolRequest, a ListArgs) (*mcp.CallToolResult, any, error) {
			l, err := up.List(ctx, a.SKU)
			return Result(g.Replies.List(a.SKU, l, err)), nil, nil
		})
		return Serve(s)
	})
}

// PlainCreate and PlainList are the tools as the careless servers present
// them: a bare description, and list_orders marked read-only.
func PlainCreate() mcp.Tool { return mcp.Tool{Name: "create_order", Description: "Place an order."} }

// PlainList: see PlainCreate.
func PlainList() mcp.Tool {
	return mcp.Tool{Name: "list_orders", Description: "List the orders for a SKU.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
}

// NewServer returns a go-sdk server named name, version 1.0.0.
func NewServer(name string) *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
}

// Serve serves s on stdin and stdout until the client leaves.
func Serve(s *mcp.Server) error {
	return s.Run(context.Background(), &mcp.StdioTransport{})
}

// Result is a go-sdk tool result holding text.
func Result(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}
