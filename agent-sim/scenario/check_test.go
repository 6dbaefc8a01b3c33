package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/config"
)

// checkTools are what a small orders server lists.
func checkTools() []transcript.Tool {
	return []transcript.Tool{
		{Name: "create_order", InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"order_id": map[string]any{"type": "string"},
				"qty":      map[string]any{"type": "integer", "minimum": 1},
			},
			"required":             []any{"order_id"},
			"additionalProperties": false,
		}},
		{Name: "find_orders", InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"order_id": map[string]any{"type": "string"}},
		}},
		// A schema that does not compile is the server's problem, not
		// the scenario's: its arguments are not checked.
		{Name: "broken", InputSchema: map[string]any{"type": 12}},
		// A reference out of the schema is never loaded.
		{Name: "outside", InputSchema: map[string]any{"$ref": "file:///etc/passwd"}},
	}
}

func TestCheckScenario(t *testing.T) {
	const head = "server: {command: [srv]}\n"
	for _, tc := range []struct {
		name string
		body string
		// want are the problems, each as line, field and parts of the
		// message; none: the scenario fits.
		want []wantProblem
	}{
		{name: "fits", body: "steps:\n  - tool: create_order\n    args: {order_id: A-1, qty: 2}\n  - tool: find_orders\n"},
		{name: "typo", body: "steps:\n  - tool: find_orders\n  - tool: creat_order\n    args: {order_id: A-1}\n",
			want: []wantProblem{{4, "steps[1].tool", []string{`no tool "creat_order"`, `did you mean "create_order"?`, "it lists broken, create_order, find_orders, outside"}}}},
		{name: "no suggestion for a far name", body: "steps:\n  - tool: ship_it\n",
			want: []wantProblem{{3, "steps[0].tool", []string{`no tool "ship_it"; it lists`}}}},
		{name: "wrong type", body: "steps:\n  - tool: create_order\n    args: {order_id: A-1, qty: two}\n",
			want: []wantProblem{{3, "steps[0].args", []string{`"create_order"`, "args.qty: got string, want integer", "invalid: true"}}}},
		{name: "missing required", body: "steps:\n  - tool: create_order\n    args: {qty: 1}\n",
			want: []wantProblem{{3, "steps[0].args", []string{"missing property 'order_id'"}}}},
		{name: "unknown argument", body: "steps:\n  - tool: create_order\n    args: {order_id: A-1, quantity: 1}\n",
			want: []wantProblem{{3, "steps[0].args", []string{"quantity"}}}},
		{name: "invalid on purpose", body: "steps:\n  - tool: create_order\n    args: {qty: -3}\n    invalid: true\n"},
		{name: "invalid still needs a listed tool", body: "steps:\n  - tool: create_ordr\n    invalid: true\n",
			want: []wantProblem{{3, "steps[0].tool", []string{`did you mean "create_order"?`}}}},
		{name: "followup typo", body: "steps:\n  - tool: create_order\n    args: {order_id: A-1}\nfollowups:\n  find_order: {order_id: A-1}\n",
			want: []wantProblem{{6, "followups.find_order", []string{`did you mean "find_orders"?`}}}},
		{name: "followup wrong type", body: "steps:\n  - tool: create_order\n    args: {order_id: A-1}\nfollowups:\n  find_orders:\n    order_id: 7\n",
			want: []wantProblem{{7, "followups.find_orders", []string{"args.order_id: got number, want string"}}}},
		// A followup for a step's tool changes that step's arguments.
		{name: "followup over its step", body: "steps:\n  - tool: create_order\n    args: {order_id: A-1}\nfollowups:\n  create_order: {qty: 2}\n"},
		{name: "followup over its step, wrong", body: "steps:\n  - tool: create_order\n    args: {order_id: A-1}\nfollowups:\n  create_order: {qty: 0}\n",
			want: []wantProblem{{6, "followups.create_order", []string{"args.qty: minimum"}}}},
		{name: "schemas not compiled are not checked", body: "steps:\n  - tool: broken\n    args: {x: 1}\n  - tool: outside\n    args: {y: 2}\n"},
		{name: "every problem at once", body: "steps:\n  - tool: creat_order\n  - tool: create_order\nfollowups:\n  fnd_orders: {}\n",
			want: []wantProblem{{3, "steps[0].tool", nil}, {4, "steps[1].args", nil}, {6, "followups.fnd_orders", nil}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse("orders.yaml", []byte(head+tc.body))
			if err != nil {
				t.Fatal(err)
			}
			err = Check(sc, checkTools())
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("got %v", err)
				}
				return
			}
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("got %v, want ErrMismatch", err)
			}
			got := err.(interface{ Unwrap() []error }).Unwrap()
			if len(got) != len(tc.want) {
				t.Fatalf("%d problems, want %d: %v", len(got), len(tc.want), err)
			}
			for i, w := range tc.want {
				var ce *config.Error
				if !errors.As(got[i], &ce) || ce.File != "orders.yaml" || ce.Line != w.line || ce.Field != w.field {
					t.Errorf("problem %d: %v; want orders.yaml:%d: %s", i, got[i], w.line, w.field)
					continue
				}
				if !strings.HasPrefix(ce.Error(), fmt.Sprintf("orders.yaml:%d: %s: ", w.line, w.field)) {
					t.Errorf("problem %d reads %q", i, ce.Error())
				}
				for _, part := range w.msg {
					if !strings.Contains(ce.Msg, part) {
						t.Errorf("problem %d: %q lacks %q", i, ce.Msg, part)
					}
				}
			}
		})
	}
}

type wantProblem struct {
	line  int
	field string
	msg   []string
}

func TestUnknownToolListsAtMost20(t *testing.T) {
	var listed []string
	for i := range 25 {
		listed = append(listed, fmt.Sprintf("tool_%02d", i))
	}
	msg := unknownTool("nope", listed)
	if !strings.Contains(msg, "tool_19 and 5 more") || strings.Contains(msg, "tool_20") {
		t.Errorf("%q", msg)
	}
}

// FuzzCheckSchema feeds Check input schemas as a server might
// list them, and arguments: whatever the schema, the check returns (nil
// or a scenario error naming the step), and never panics or reads a file.
func FuzzCheckSchema(f *testing.F) {
	for _, seed := range []struct{ schema, args string }{
		{`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, `{"id":"A-1"}`},
		{`{"type":"object","additionalProperties":false}`, `{"x":1}`},
		{`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, `{}`},
		{`{"$ref":"file:///etc/passwd"}`, `{}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","maximum":3}}}`, `{"n":4}`},
		{`{"$schema":"https://example.com/unknown"}`, `{}`},
		{`{"pattern":"(a+)+$","type":"string"}`, `{"s":"aaaa"}`},
		{`{"type":12}`, `{}`},
		{`true`, `{}`},
		{`[]`, `{}`},
	} {
		f.Add(seed.schema, seed.args)
	}
	f.Fuzz(func(t *testing.T, schemaJSON, argsJSON string) {
		var schema any
		var args map[string]any
		if json.Unmarshal([]byte(schemaJSON), &schema) != nil || json.Unmarshal([]byte(argsJSON), &args) != nil {
			return
		}
		sc := &Scenario{File: "f.yaml", Steps: []Step{{Tool: "t", Args: args, Line: 3}}}
		err := Check(sc, []transcript.Tool{{Name: "t", InputSchema: schema}})
		if err != nil && (!errors.Is(err, ErrMismatch) || !strings.HasPrefix(err.Error(), "f.yaml:3: steps[0].args: ")) {
			t.Errorf("schema %s, args %s: %v", schemaJSON, argsJSON, err)
		}
	})
}

// TestSchemaLoadsNothing checks that a schema referring to a file is not
// compiled: were the file read, its schema would reject the arguments.
func TestSchemaLoadsNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(`{"type":"integer"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"$ref": "file://" + filepath.ToSlash(path)}
	if compileSchema(schema) != nil {
		t.Error("a schema referring to a file compiled")
	}
	sc := &Scenario{File: "f.yaml", Steps: []Step{{Tool: "t", Args: map[string]any{"x": 1}}}}
	if err := Check(sc, []transcript.Tool{{Name: "t", InputSchema: schema}}); err != nil {
		t.Error(err)
	}
}
