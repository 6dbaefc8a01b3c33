package demo

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// carelessTools is the server most people write first: handlers return
// whatever error the HTTP client gave them. Registered with the raw
// Server.AddTool, a returned error becomes a JSON-RPC error (go-sdk sends
// code 0 with the error text), so a hang, a refused connection or a cut
// reply never reaches the model as a tool result, and when a host does
// show it, it carries the upstream URL. Carrier statuses come back as raw
// isError text, URL and body included. No annotations, no idempotency.
func carelessTools(c *carrierClient) []toolDef {
	return []toolDef{
		{
			tool: &mcp.Tool{
				Name:        ToolCreateShipment,
				Description: "Create a shipment.",
				InputSchema: objectSchema("order_id", "Order id.", "address", "Delivery address."),
			},
			handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a createArgs
				if err := decodeArgs(req, &a); err != nil {
					return nil, err
				}
				s, _, err := c.createShipment(ctx, a.OrderID, a.Address, "")
				return carelessResult(s, err)
			},
		},
		{
			tool: &mcp.Tool{
				Name:        ToolGetShipment,
				Description: "Get a shipment.",
				InputSchema: objectSchema("shipment_id", "Shipment id."),
			},
			handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a getArgs
				if err := decodeArgs(req, &a); err != nil {
					return nil, err
				}
				s, err := c.getShipment(ctx, a.ShipmentID)
				return carelessResult(s, err)
			},
		},
		{
			tool: &mcp.Tool{
				Name:        ToolFindShipments,
				Description: "Find shipments.",
				InputSchema: objectSchema("order_id", "Order id."),
			},
			handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a findArgs
				if err := decodeArgs(req, &a); err != nil {
					return nil, err
				}
				l, err := c.findShipments(ctx, a.OrderID)
				return carelessResult(l, err)
			},
		},
	}
}

// carelessResult passes transport errors up as Go errors (→ JSON-RPC
// error), and whatever went wrong once the carrier had answered (an error
// status, a reply cut short) as raw isError text: the mix most real
// servers have, since the two paths are written at different times.
func carelessResult(v any, err error) (*mcp.CallToolResult, error) {
	if err == nil {
		return textResult(jsonText(v)), nil
	}
	if k := asUpstream(err).kind; k == failStatus || k == failBadReply {
		return toolError("error: " + err.Error()), nil
	}
	return nil, err
}
