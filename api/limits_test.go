package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/api"
)

// TestHostileBodies: inputs that once killed the process (a when nested
// 400,000 deep overflowed expr-lang's parser stack) or that could (a JSON
// body nested far deeper than any fault) are answered 400 with the limit
// and its position, and the server goes on serving.
func TestHostileBodies(t *testing.T) {
	deep := func(n int) string {
		return "len(" + strings.Repeat("[", n) + strings.Repeat("]", n) + ") > 0"
	}
	body := func(when string) string {
		b, err := json.Marshal(api.FaultRequest{Name: "deep", When: when, Fault: api.FaultSpec{Kind: "reset"}})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name, body  string
		code, field string
		column      int
		msg         string
	}{
		{name: "when nested 400,000 deep", body: body(deep(400_000)), code: api.CodeInvalidExpression, field: "when",
			column: 65536 + 1, msg: "expression over 65536 bytes (the limit)"},
		{name: "when nested 101 deep", body: body(deep(101)), code: api.CodeInvalidExpression, field: "when",
			column: 4 + 100, msg: "nesting deeper than 100 levels (the limit)"},
		{name: "JSON nested 300,000 deep", body: `{"name":"deep","fault":{"kind":"latency","x":` +
			strings.Repeat("[", 300_000) + strings.Repeat("]", 300_000) + `}}`, code: api.CodeInvalidJSON, msg: "depth"},
	}
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			f := setup(t, tr, nil, api.Options{})
			for _, tt := range tests {
				if len(tt.body) > api.DefaultMaxBodyBytes {
					t.Fatalf("%s: %d bytes would be refused for its size, not its content", tt.name, len(tt.body))
				}
				status, resp := f.call(t, "POST", "/v1/faults", "application/json", tt.body)
				var e struct{ Error api.Error }
				if err := json.Unmarshal([]byte(resp), &e); err != nil {
					t.Fatalf("%s: %d %s", tt.name, status, resp)
				}
				got := e.Error
				if status != 400 || got.Code != tt.code || got.Field != tt.field || !strings.Contains(got.Message, tt.msg) {
					t.Errorf("%s: %d %+v, want 400 %s field %q message %q", tt.name, status, got, tt.code, tt.field, tt.msg)
				}
				if tt.column != 0 && (got.Line != 1 || got.Column != tt.column) {
					t.Errorf("%s: at %d:%d, want 1:%d", tt.name, got.Line, got.Column, tt.column)
				}
			}
			// Still alive, and still taking faults.
			if status, resp := f.call(t, "GET", "/healthz", "", ""); status != 200 {
				t.Fatalf("healthz after the hostile bodies: %d %s", status, resp)
			}
			ok := body(fmt.Sprintf("len(%s1%s) > 0", strings.Repeat("[", 99), strings.Repeat("]", 99)))
			if status, resp := f.call(t, "POST", "/v1/faults", "application/json", ok); status != 201 {
				t.Fatalf("a when at the depth limit: %d %s", status, resp)
			}
		})
	}
}
