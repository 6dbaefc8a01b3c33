package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// carefulTools reports every carrier failure as a tool error that states
// what is true, names the next action, says whether to retry, and leaks
// nothing; create_shipment sends an idempotency key derived from its
// arguments, so the IdempotentHint it declares is true.
func carefulTools(c *carrierClient) []toolDef {
	return []toolDef{
		{
			tool: &mcp.Tool{
				Name: ToolCreateShipment,
				Description: "Create a shipment for an order with the carrier. Repeating the call with the same " +
					"order_id and address never creates a second shipment. If the outcome is unknown, " +
					"check with find_shipments.",
				InputSchema: objectSchema("order_id", "The order's id, like A-1001.", "address", "The delivery address."),
				Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
			},
			handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a createArgs
				if err := decodeArgs(req, &a); err != nil || a.OrderID == "" || a.Address == "" {
					return carefulInvalid(req, "create_shipment needs order_id and address, both strings. "+
						"Call it again with both; ask the user for whichever is missing.")
				}
				s, created, err := c.createShipment(ctx, a.OrderID, a.Address, idempotencyKey(a.OrderID, a.Address))
				if err != nil {
					return carefulFailure(ctx, createMessage(a.OrderID, asUpstream(err)))
				}
				if !created {
					return textResult(fmt.Sprintf("Shipment %s for order %s to %s already existed; no second shipment was created.",
						s.ID, s.OrderID, s.Address)), nil
				}
				return textResult(fmt.Sprintf("Created shipment %s for order %s to %s.", s.ID, s.OrderID, s.Address)), nil
			},
		},
		{
			tool: &mcp.Tool{
				Name:        ToolGetShipment,
				Description: "Get one shipment by its id, like SHP-0001. Read-only.",
				InputSchema: objectSchema("shipment_id", "The shipment's id, like SHP-0001."),
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)},
			},
			handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a getArgs
				if err := decodeArgs(req, &a); err != nil || a.ShipmentID == "" {
					return carefulInvalid(req, "get_shipment needs shipment_id, a string like SHP-0001. "+
						"To look shipments up by order instead, call find_shipments with order_id.")
				}
				s, err := c.getShipment(ctx, a.ShipmentID)
				if err != nil {
					ue := asUpstream(err)
					if ue.kind == failStatus && ue.status == 404 {
						return toolError(fmt.Sprintf("No shipment with id %s exists. Do not retry this call unchanged. "+
							"To list an order's shipments, call find_shipments with its order_id.", a.ShipmentID)), nil
					}
					return carefulFailure(ctx, readMessage(ue, "shipment lookups"))
				}
				return textResult(fmt.Sprintf("Shipment %s: order %s, status %s, to %s.", s.ID, s.OrderID, s.Status, s.Address)), nil
			},
		},
		{
			tool: &mcp.Tool{
				Name: ToolFindShipments,
				Description: "List the shipments of an order. Read-only; use it to check whether a " +
					"create_shipment whose outcome is unknown took effect.",
				InputSchema: objectSchema("order_id", "The order's id, like A-1001."),
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)},
			},
			handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a findArgs
				if err := decodeArgs(req, &a); err != nil || a.OrderID == "" {
					return carefulInvalid(req, "find_shipments needs order_id, a string like A-1001. Call it again with order_id.")
				}
				l, err := c.findShipments(ctx, a.OrderID)
				if err != nil {
					return carefulFailure(ctx, readMessage(asUpstream(err), "shipment lookups"))
				}
				return textResult(listMessage(a.OrderID, l)), nil
			},
		},
	}
}

// idempotencyKey derives the key from the arguments, so a retry of the
// same create_shipment (by the model, or after a lost reply) carries the
// same key and the carrier returns the first shipment instead of
// committing another.
func idempotencyKey(orderID, address string) string {
	sum := sha256.Sum256([]byte(orderID + "\x00" + address))
	return "cs-" + hex.EncodeToString(sum[:16])
}

// carefulFailure reports msg as a tool error; a cancelled MCP request is a
// protocol matter and goes back as an error.
func carefulFailure(ctx context.Context, msg string) (*mcp.CallToolResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return toolError(msg), nil
}

// carefulInvalid reports arguments that do not match the published schema
// in the channel the negotiated protocol version asks for: JSON-RPC
// -32602 up to 2025-06-18, an isError result from 2025-11-25 on (so the
// model can correct itself).
func carefulInvalid(req *mcp.CallToolRequest, msg string) (*mcp.CallToolResult, error) {
	if v := req.ProtocolVersion(); v != "" && v < "2025-11-25" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	}
	return toolError(msg), nil
}

// unknownTail tells the model how to resolve an unknown write outcome.
func unknownTail(orderID string) string {
	return fmt.Sprintf("Do not retry create_shipment yet: call find_shipments with order_id %s to check. "+
		"If it lists no shipment, calling create_shipment again with the same order_id and address is safe: "+
		"it cannot create a duplicate.", orderID)
}

// createMessage says what is known after create_shipment failed.
func createMessage(orderID string, ue *upstreamError) string {
	switch ue.kind {
	case failUnreachable:
		return fmt.Sprintf("The carrier API cannot be reached right now (%s). Nothing was created. "+
			"Retry once in a minute; if it fails again, stop and tell the user shipments cannot be created at the moment.", ue.cause)
	case failTimeout:
		return fmt.Sprintf("The carrier did not answer in time, so the shipment for order %s may or may not have been created. %s",
			orderID, unknownTail(orderID))
	case failDropped:
		return fmt.Sprintf("The connection to the carrier broke before it answered, so the shipment for order %s may or may not "+
			"have been created. %s", orderID, unknownTail(orderID))
	case failBadReply:
		return fmt.Sprintf("The carrier accepted the shipment for order %s, but its reply was cut off, so the shipment id is unknown. "+
			"Do not retry create_shipment: call find_shipments with order_id %s to get it.", orderID, orderID)
	}
	switch s := ue.status; {
	case s == 429 || s == 503:
		return fmt.Sprintf("The carrier is overloaded and refused the request (HTTP %d). Nothing was created. "+
			"Retry once after %s; if it fails again, stop and tell the user shipments cannot be created at the moment.",
			s, retryWait(ue))
	case s >= 500:
		return fmt.Sprintf("The carrier failed while handling the request (HTTP %d), so the shipment for order %s may or may not "+
			"have been created. %s", s, orderID, unknownTail(orderID))
	case s == 401 || s == 403:
		return fmt.Sprintf("The carrier refused to create shipments for this account (HTTP %d). Nothing was created. "+
			"Do not retry; tell the user shipping is not authorised.", s)
	case s == 400 || s == 422:
		return fmt.Sprintf("The carrier rejected the shipment for order %s (HTTP %d): it did not accept the order id or the address. "+
			"Nothing was created. Do not retry this call unchanged; confirm the order id and address with the user.", orderID, s)
	default:
		return fmt.Sprintf("The carrier refused the request (HTTP %d). Nothing was created. "+
			"Do not retry this call unchanged; tell the user shipments cannot be created at the moment.", s)
	}
}

// readMessage says what is known after a read failed. Nothing changed, so
// one bounded retry is always safe.
func readMessage(ue *upstreamError, what string) string {
	stop := fmt.Sprintf("if it fails again, stop and tell the user %s are unavailable.", what)
	switch ue.kind {
	case failUnreachable:
		return fmt.Sprintf("The carrier API cannot be reached right now (%s). Nothing was changed. Retry once in a minute; %s", ue.cause, stop)
	case failTimeout:
		return "The carrier did not answer in time. Nothing was changed: this is a read. Retry once; " + stop
	case failDropped:
		return "The connection to the carrier broke before it answered. Nothing was changed: this is a read. Retry once; " + stop
	case failBadReply:
		return "The carrier's reply was cut off. Nothing was changed: this is a read. Retry once; " + stop
	}
	switch s := ue.status; {
	case s == 429 || s == 503:
		return fmt.Sprintf("The carrier is overloaded and refused the lookup (HTTP %d). Retry once after %s; %s", s, retryWait(ue), stop)
	case s >= 500:
		return fmt.Sprintf("The carrier failed while handling the lookup (HTTP %d). Nothing was changed. Retry once; %s", s, stop)
	default:
		return fmt.Sprintf("The carrier refused the lookup (HTTP %d). Do not retry; tell the user %s are unavailable.", s, what)
	}
}

// retryWait renders the carrier's Retry-After, or a minute when it gave
// none.
func retryWait(ue *upstreamError) string {
	switch secs := int(ue.retryAfter.Seconds()); {
	case secs <= 0:
		return "a minute"
	case secs == 1:
		return "1 second"
	default:
		return fmt.Sprintf("%d seconds", secs)
	}
}

// listMessage renders find_shipments' answer, including what it means for
// a create_shipment whose outcome was unknown.
func listMessage(orderID string, l []Shipment) string {
	if len(l) == 0 {
		return fmt.Sprintf("No shipment exists for order %s. Calling create_shipment with this order_id and address is safe: "+
			"a repeated request cannot create a duplicate.", orderID)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Order %s has %d shipment(s):\n", orderID, len(l))
	for _, s := range l {
		fmt.Fprintf(&b, "- %s, status %s, to %s\n", s.ID, s.Status, s.Address)
	}
	b.WriteString("These shipments exist; do not call create_shipment again for them.")
	return b.String()
}

func ptr[T any](v T) *T { return &v }
