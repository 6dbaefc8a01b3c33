package driver

import (
	"context"
	"fmt"
	"slices"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxToolPages bounds tools/list pagination against a server whose
// cursor never ends.
const maxToolPages = 100

// listTools reads every page of tools/list.
func listTools(ctx context.Context, cs *mcp.ClientSession) ([]transcript.Tool, error) {
	var out []transcript.Tool
	params := &mcp.ListToolsParams{}
	for range maxToolPages {
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		for _, t := range res.Tools {
			out = append(out, toolFrom(t))
		}
		if res.NextCursor == "" {
			return out, nil
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
	return nil, fmt.Errorf("tools/list: more than %d pages", maxToolPages)
}

// toolFrom reduces an SDK tool to what the simulator reads. Annotations
// are taken as declared: an absent destructiveHint is false here, although
// the spec's default is true, because the judge grades declarations.
func toolFrom(t *mcp.Tool) transcript.Tool {
	out := transcript.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	if schema, ok := t.InputSchema.(map[string]any); ok {
		if props, ok := schema["properties"].(map[string]any); ok {
			for k := range props {
				out.Params = append(out.Params, k)
			}
			slices.Sort(out.Params)
		}
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					out.Required = append(out.Required, s)
				}
			}
		}
	}
	if a := t.Annotations; a != nil {
		out.ReadOnly = a.ReadOnlyHint
		out.Idempotent = a.IdempotentHint
		out.Destructive = a.DestructiveHint != nil && *a.DestructiveHint
	}
	return out
}
