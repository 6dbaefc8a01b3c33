package judge

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// orderTools is a server that is not the demo: its write is create_order
// and the read that checks it is find_orders.
var orderTools = []transcript.Tool{
	{Name: "create_order", Params: []string{"customer_id", "sku", "qty"}, Required: []string{"customer_id", "sku"}},
	{Name: "find_orders", Params: []string{"customer_id"}, Required: []string{"customer_id"}, ReadOnly: true},
	{Name: "get_weather", Params: []string{"city"}, ReadOnly: true},
}

// snakeRE finds the identifiers a hint names (tools, arguments).
var snakeRE = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)

// TestHintsNameOnlyTheServersTools judges runs of a server whose tools are
// not the demo's and that trip every check that can name a tool: no hint
// may name a tool or argument the server lacks, and MC004's names the read
// that checks the write.
func TestHintsNameOnlyTheServersTools(t *testing.T) {
	args := map[string]any{"customer_id": "C-7", "sku": "SKU-1"}
	call := func(n int, tool string, ch transcript.Channel, code int, text string) transcript.Call {
		return transcript.Call{N: n, Step: 1, Tool: tool, Args: args, Attempt: n, Channel: ch, Code: code, Text: text}
	}
	lost := call(1, "create_order", transcript.ChannelToolError, 0, "Order failed.")
	lost.Injections, lost.Exchanges, lost.Committed = []string{"lose reply"}, 1, 1
	lost.Faults = []transcript.InjectionRecord{{Rule: "lose reply", Kind: "response_lost", Outcome: inject.OutcomeCommittedReplyLost, Hits: 1}}
	inputs := []Input{
		{Tools: orderTools, Budget: 3,
			Calls: []transcript.Call{lost, call(2, "create_order", transcript.ChannelProtocolError, 0, "order service error"),
				call(3, "find_orders", transcript.ChannelToolError, 0, "lookup failed")},
			SideEffects: []transcript.SideEffectCount{{Name: "order", Intended: 1, Committed: 2}}},
		// No tool that can check: the hints name none.
		{Tools: orderTools[:1], Converged: true,
			Calls: []transcript.Call{lost}},
	}
	names := map[string]bool{}
	for _, tl := range orderTools {
		names[tl.Name] = true
		for _, p := range tl.Params {
			names[p] = true
		}
	}
	for i, in := range inputs {
		fs := Judge(in)
		var ids []string
		for _, f := range fs {
			ids = append(ids, f.ID)
			for _, w := range snakeRE.FindAllString(f.Hint, -1) {
				if !names[w] {
					t.Errorf("input %d: %s's hint names %q, which the server does not have: %s", i, f.ID, w, f.Hint)
				}
			}
		}
		for _, id := range []string{"MC004", "MC006"} {
			if !slices.Contains(ids, id) {
				t.Fatalf("input %d: no %s among %v: the test proves nothing", i, id, ids)
			}
		}
		for _, f := range fs {
			if f.ID != "MC004" {
				continue
			}
			want := `"call find_orders with the customer_id"`
			if i == 1 {
				want = "a read-only tool of this server"
			}
			if !strings.Contains(f.Hint, want) {
				t.Errorf("input %d: MC004 hint %q lacks %s", i, f.Hint, want)
			}
		}
	}
}

func TestCheckingRead(t *testing.T) {
	tests := []struct {
		tools     []transcript.Tool
		tool      string
		read, key string
		ok        bool
	}{
		{orderTools, "create_order", "find_orders", "customer_id", true},
		// The demo's own: the shared argument wins over the shared noun.
		{simtest.ShippingTools, "create_shipment", "find_shipments", "order_id", true},
		// A shared noun alone: the read's single required argument.
		{[]transcript.Tool{{Name: "add_invoice", Params: []string{"amount"}}, {Name: "list_invoices", Params: []string{"ledger"}, Required: []string{"ledger"}, ReadOnly: true}},
			"add_invoice", "list_invoices", "ledger", true},
		// Nothing related: no read at all.
		{[]transcript.Tool{{Name: "create_order", Params: []string{"sku"}}, {Name: "get_weather", Params: []string{"city"}, ReadOnly: true}},
			"create_order", "", "", false},
		{orderTools, "absent_tool", "", "", false},
	}
	for _, tc := range tests {
		r, k, ok := checkingRead(tc.tools, tc.tool)
		if r != tc.read || k != tc.key || ok != tc.ok {
			t.Errorf("%s: got %q %q %v, want %q %q %v", tc.tool, r, k, ok, tc.read, tc.key, tc.ok)
		}
	}
}
