package demo

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names. find_shipments is the tool a good error message points to.
const (
	ToolCreateShipment = "create_shipment"
	ToolGetShipment    = "get_shipment"
	ToolFindShipments  = "find_shipments"
)

type createArgs struct {
	OrderID string `json:"order_id"`
	Address string `json:"address"`
}

type getArgs struct {
	ShipmentID string `json:"shipment_id"`
}

type findArgs struct {
	OrderID string `json:"order_id"`
}

// decodeArgs unmarshals a tools/call's raw arguments. Missing arguments
// decode as "" and are caught by each handler's own check.
func decodeArgs(req *mcp.CallToolRequest, v any) error {
	if len(req.Params.Arguments) == 0 {
		return nil
	}
	return json.Unmarshal(req.Params.Arguments, v)
}

// objectSchema builds an input schema of required string properties;
// props alternates name and description.
func objectSchema(props ...string) map[string]any {
	p := map[string]any{}
	var req []string
	for i := 0; i+1 < len(props); i += 2 {
		p[props[i]] = map[string]any{"type": "string", "description": props[i+1]}
		req = append(req, props[i])
	}
	return map[string]any{"type": "object", "properties": p, "required": req}
}

// toolDef is one tool with its handler.
type toolDef struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

// textResult is a successful result with one text block.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// toolError is an isError result: the channel the model reads.
func toolError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

// jsonText renders v as indented JSON for a result's text.
func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "{}"
	}
	return string(b)
}
