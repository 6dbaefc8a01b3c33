package demo

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// terseTools uses the right channel with the wrong words: every failure is
// an isError result, but the text is true and useless ("shipment
// failed"), so the model learns that something failed and nothing about
// what to do. It shows that the channel alone does not end a retry loop.
// Annotations are honest (reads are read-only; the write claims nothing),
// and nothing makes the write idempotent.
func terseTools(c *carrierClient) []toolDef {
	return []toolDef{
		{
			tool: &mcp.Tool{
				Name:        ToolCreateShipment,
				Description: "Create a shipment for an order.",
				InputSchema: objectSchema("order_id", "Order id.", "address", "Delivery address."),
			},
			handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a createArgs
				if err := decodeArgs(req, &a); err != nil || a.OrderID == "" || a.Address == "" {
					return toolError("invalid arguments"), nil
				}
				s, _, err := c.createShipment(ctx, a.OrderID, a.Address, "")
				if err != nil {
					return terseFailure(ctx, "shipment failed")
				}
				return textResult(jsonText(s)), nil
			},
		},
		{
			tool: &mcp.Tool{
				Name:        ToolGetShipment,
				Description: "Get a shipment by id.",
				InputSchema: objectSchema("shipment_id", "Shipment id."),
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			},
			handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a getArgs
				if err := decodeArgs(req, &a); err != nil || a.ShipmentID == "" {
					return toolError("invalid arguments"), nil
				}
				s, err := c.getShipment(ctx, a.ShipmentID)
				if err != nil {
					if ue := asUpstream(err); ue.kind == failStatus && ue.status == 404 {
						return toolError("not found"), nil
					}
					return terseFailure(ctx, "lookup failed")
				}
				return textResult(jsonText(s)), nil
			},
		},
		{
			tool: &mcp.Tool{
				Name:        ToolFindShipments,
				Description: "Find the shipments of an order.",
				InputSchema: objectSchema("order_id", "Order id."),
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			},
			handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a findArgs
				if err := decodeArgs(req, &a); err != nil || a.OrderID == "" {
					return toolError("invalid arguments"), nil
				}
				l, err := c.findShipments(ctx, a.OrderID)
				if err != nil {
					return terseFailure(ctx, "lookup failed")
				}
				return textResult(jsonText(l)), nil
			},
		},
	}
}

// terseFailure reports text as a tool error, unless the MCP request itself
// was cancelled: that is the client's business (a protocol matter).
func terseFailure(ctx context.Context, text string) (*mcp.CallToolResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return toolError(text), nil
}
