package scenario

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// scanSchemas are input schemas as servers list them (decoded JSON).
var scanSchemas = map[string]string{
	"flat":     `{"type":"object","properties":{"order_id":{"type":"string"},"qty":{"type":"integer","minimum":1,"maximum":3},"note":{"type":"string"}},"required":["order_id","qty"]}`,
	"enum":     `{"type":"object","properties":{"speed":{"type":"string","enum":["standard","express"]},"priority":{"enum":[1,2,3]}},"required":["speed","priority"]}`,
	"formats":  `{"type":"object","properties":{"at":{"type":"string","format":"date-time"},"mail":{"type":"string","format":"email"},"id":{"type":"string","format":"uuid"},"site":{"type":"string","format":"uri"}},"required":["at","mail","id","site"]}`,
	"pattern":  `{"type":"object","properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"},"code":{"type":"string","pattern":"^(ab|cd)+x?$","minLength":4}},"required":["sku","code"]}`,
	"nested":   `{"type":"object","properties":{"address":{"type":"object","properties":{"street":{"type":"string","minLength":3},"zip":{"type":"string","pattern":"^[0-9]{5}$"},"country":{"type":"string","enum":["US","FR"]}},"required":["street","zip","country"]},"items":{"type":"array","minItems":2,"items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"number","exclusiveMinimum":0}},"required":["sku","qty"]}},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"uniqueItems":true}},"required":["address","items","tags"]}`,
	"refs":     `{"type":"object","$defs":{"money":{"type":"object","properties":{"amount":{"type":"integer","multipleOf":5,"minimum":7},"currency":{"const":"EUR"}},"required":["amount","currency"]}},"properties":{"price":{"$ref":"#/$defs/money"},"when":{"type":["null","string"],"format":"date"}},"required":["price","when"]}`,
	"combined": `{"type":"object","properties":{"target":{"anyOf":[{"type":"null"},{"type":"string","maxLength":4}]},"opts":{"allOf":[{"type":"object","properties":{"a":{"type":"boolean"}},"required":["a"]},{"properties":{"b":{"type":"integer"}},"required":["b"]}]}},"required":["target","opts"]}`,
	"empty":    `{"type":"object"}`,
}

func decodeSchema(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestArgGenValid: the generated arguments pass the schema, are the same
// for the same seed, and the invalid ones fail it.
func TestArgGenValid(t *testing.T) {
	check := &argChecker{schemas: map[string]*jsonschema.Schema{}}
	for name, src := range scanSchemas {
		t.Run(name, func(t *testing.T) {
			tool := transcript.Tool{Name: name, InputSchema: decodeSchema(t, src)}
			args := NewArgGen(7).Valid(name, tool.InputSchema)
			if msg := check.check(tool, args); msg != "" {
				t.Fatalf("generated %v: %s", args, msg)
			}
			if again := NewArgGen(7).Valid(name, tool.InputSchema); !reflect.DeepEqual(args, again) {
				t.Errorf("seed 7 gave %v then %v", args, again)
			}
			bad, broke, ok := NewArgGen(7).Invalid(name, tool.InputSchema)
			if name == "empty" {
				if ok {
					t.Errorf("an empty schema was broken: %v (%s)", bad, broke)
				}
				return
			}
			if !ok || check.check(tool, bad) == "" {
				t.Errorf("invalid %v (%s) passes the schema", bad, broke)
			}
		})
	}
}

func TestArgGenSamples(t *testing.T) {
	g := NewArgGen(1)
	args := g.Valid("p", decodeSchema(t, scanSchemas["pattern"]))
	if args["sku"] != "AAA-0000" {
		t.Errorf("sku %v, want AAA-0000 from ^[A-Z]{3}-\\d{4}$", args["sku"])
	}
	args = g.Valid("f", decodeSchema(t, scanSchemas["flat"]))
	if s, _ := args["order_id"].(string); len(s) < 7 || s[:6] != "order-" {
		t.Errorf("order_id %v, want order-N", args["order_id"])
	}
	if _, ok := args["note"]; ok {
		t.Errorf("an optional property was generated: %v", args)
	}
}

func TestClassifyTool(t *testing.T) {
	tests := []struct {
		tool               transcript.Tool
		write, destructive bool
	}{
		{transcript.Tool{Name: "create_shipment"}, true, false},
		{transcript.Tool{Name: "get_shipment"}, false, false},
		{transcript.Tool{Name: "findShipments"}, false, false},
		{transcript.Tool{Name: "deleteUser"}, true, true},
		{transcript.Tool{Name: "pods-delete"}, true, true},
		{transcript.Tool{Name: "resources_list"}, false, false},
		{transcript.Tool{Name: "frobnicate"}, true, false},
		{transcript.Tool{Name: "delete_user", ReadOnly: true}, false, false},
		{transcript.Tool{Name: "get_user", Destructive: true}, true, true},
		{transcript.Tool{Name: "list_things", Idempotent: true}, true, false},
	}
	for _, tt := range tests {
		c := ClassifyTool(tt.tool)
		if c.Write != tt.write || c.Destructive != tt.destructive || c.Reason == "" {
			t.Errorf("%+v: %+v, want write %v destructive %v", tt.tool, c, tt.write, tt.destructive)
		}
	}
}

// FuzzArgGen: an arbitrary schema makes the generator neither panic nor
// loop, and its output always encodes as JSON.
func FuzzArgGen(f *testing.F) {
	for _, s := range scanSchemas {
		f.Add(s, uint64(1))
	}
	f.Add(`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, uint64(2))
	f.Add(`{"type":"object","properties":{"x":{"$ref":"#"}},"required":["x"]}`, uint64(3))
	f.Add(`{"type":"array","minItems":1e300,"items":{"type":"array","minItems":99999}}`, uint64(4))
	f.Add(`{"type":"string","pattern":"(a{1000}){1000}","minLength":1e9}`, uint64(5))
	f.Add(`{"type":"integer","minimum":1e308,"multipleOf":1e-308}`, uint64(6))
	f.Fuzz(func(t *testing.T, src string, seed uint64) {
		var schema any
		if len(src) > 1<<16 || json.Unmarshal([]byte(src), &schema) != nil {
			return
		}
		g := NewArgGen(seed)
		if _, err := json.Marshal(g.Valid("t", schema)); err != nil {
			t.Fatalf("valid args do not encode: %v", err)
		}
		bad, _, _ := g.Invalid("t", schema)
		if _, err := json.Marshal(bad); err != nil {
			t.Fatalf("invalid args do not encode: %v", err)
		}
	})
}
