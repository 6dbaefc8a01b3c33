package persona_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// trace renders a transcript as "tool:action" steps.
func trace(calls []transcript.Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = fmt.Sprintf("%s:%s", c.Tool, c.Decision.Action)
	}
	return out
}

func TestPersonaTranscripts(t *testing.T) {
	careless := simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {{Channel: transcript.ChannelProtocolError, Code: 0,
		Text: `Post "http://10.0.3.7:9000/shipments": context deadline exceeded`}}})
	careful := simtest.Replies(map[string][]transcript.Outcome{
		"create_shipment": {simtest.ToolErr(simtest.CarefulUnknown)},
		"find_shipments":  {simtest.OK("Order A-1001 has 1 shipment(s):\n- SHP-0001, status created, to 1 Main St")},
	})
	carefulNone := simtest.Replies(map[string][]transcript.Outcome{
		"create_shipment": {simtest.ToolErr(simtest.CarefulUnknown), simtest.OK("Created shipment SHP-0002.")},
		"find_shipments":  {simtest.OK("No shipment exists for order A-1001.")},
	})
	stillUnknown := simtest.Replies(map[string][]transcript.Outcome{
		"create_shipment": {simtest.ToolErr(simtest.CarefulUnknown)},
		"find_shipments":  {simtest.OK("[]")},
	})
	tests := []struct {
		name, persona, host string
		srv                 simtest.FakeServer
		want                []string
		converged           bool
	}{
		{"swallowed loops", "diligent", "swallow", careless, repeat("create_shipment:retry", 6), false},
		{"raw without guidance loops", "diligent", "raw", careless, repeat("create_shipment:retry", 6), false},
		{"generic loops", "diligent", "generic", careless, repeat("create_shipment:retry", 6), false},
		{"careful converges", "diligent", "swallow", careful, []string{"create_shipment:check_state", "find_shipments:next"}, true},
		{"check shows none", "diligent", "raw", carefulNone,
			[]string{"create_shipment:check_state", "find_shipments:retry", "create_shipment:next"}, true},
		{"still unknown stops", "diligent", "raw", stillUnknown,
			[]string{"create_shipment:check_state", "find_shipments:retry", "create_shipment:stop"}, true},
		// A state check is read with reader.ReadLookup: a result that
		// shows the item ends the step, one it cannot read stops rather
		// than risking a duplicate.
		{"check found in JSON", "diligent", "raw", checkReplies(`{"total_count":1,"items":[{"id":"SHP-0001"}]}`),
			[]string{"create_shipment:check_state", "find_shipments:next"}, true},
		{"check unreadable stops", "diligent", "raw", checkReplies("Keine Sendung für Auftrag A-1001 gefunden."),
			[]string{"create_shipment:check_state", "find_shipments:stop"}, true},
		{"do not retry", "diligent", "raw", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr("The address is invalid. Do not retry.")}}),
			[]string{"create_shipment:stop"}, true},
		{"transient bounded", "diligent", "raw", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr("The carrier is temporarily unavailable.")}}),
			[]string{"create_shipment:retry", "create_shipment:retry", "create_shipment:stop"}, true},
		{"retry once then tell", "diligent", "raw", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr(simtest.CarefulUnreachable)}}),
			[]string{"create_shipment:retry", "create_shipment:stop"}, true},
		{"literal retry once then tell", "literal", "raw", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr(simtest.CarefulUnreachable)}}),
			[]string{"create_shipment:retry", "create_shipment:stop"}, true},
		{"vague diligent", "diligent", "raw", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr("shipment failed")}}),
			[]string{"create_shipment:retry", "create_shipment:stop"}, true},
		{"vague stubborn", "stubborn", "raw", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr("shipment failed")}}),
			repeat("create_shipment:retry", 6), false},
		{"try again later literal", "literal", "raw", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr("Please try again later.")}}),
			repeat("create_shipment:retry", 6), false},
		{"unknown without check", "diligent", "raw", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr("The outcome is unknown.")}}),
			[]string{"create_shipment:stop"}, true},
		{"user action", "diligent", "raw", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr("The address is incomplete. Ask the user for the street number.")}}),
			[]string{"create_shipment:stop"}, true},
		{"next tool then stop on failure", "diligent", "raw", simtest.Replies(map[string][]transcript.Outcome{
			"create_shipment": {simtest.ToolErr("Order A-1001 already has a shipment. Call find_shipments.")},
			"find_shipments":  {simtest.ToolErr("lookup failed")}}),
			[]string{"create_shipment:call_tool", "find_shipments:stop"}, true},
		{"next tool then done", "diligent", "raw", simtest.Replies(map[string][]transcript.Outcome{
			"create_shipment": {simtest.ToolErr("Order A-1001 already has a shipment. Call find_shipments.")},
			"find_shipments":  {simtest.OK("SHP-0001")}}),
			[]string{"create_shipment:call_tool", "find_shipments:next"}, true},
		{"success", "stubborn", "swallow", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.OK("Created shipment SHP-0001.")}}),
			[]string{"create_shipment:next"}, true},
		{"success that is an upstream error", "diligent", "raw", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.OK("502 Bad Gateway")}}),
			[]string{"create_shipment:retry", "create_shipment:stop"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, converged := simtest.Simulate(t, tt.persona, tt.host, tt.srv, simtest.CreateStep, nil, 6)
			if diff := cmp.Diff(tt.want, trace(calls)); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
			if converged != tt.converged {
				t.Errorf("converged = %t, want %t", converged, tt.converged)
			}
		})
	}
}

// checkReplies is a careful server whose state check answers text.
func checkReplies(text string) simtest.FakeServer {
	return simtest.Replies(map[string][]transcript.Outcome{
		"create_shipment": {simtest.ToolErr(simtest.CarefulUnknown)},
		"find_shipments":  {simtest.OK(text)},
	})
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestPersonaArgs(t *testing.T) {
	t.Run("literal forces", func(t *testing.T) {
		srv := simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr("Shipment exists. Retry with force: true."), simtest.OK("Created.")}})
		calls, _ := simtest.Simulate(t, "literal", "raw", srv, simtest.CreateStep, nil, 6)
		// force is not an argument of create_shipment's schema, so the
		// reader gives no argument hint: literal obeys the unsafe
		// invitation by retrying, where diligent stops.
		want := []string{"create_shipment:retry", "create_shipment:next"}
		if diff := cmp.Diff(want, trace(calls)); diff != "" {
			t.Fatalf("transcript (-want +got):\n%s", diff)
		}
		if calls[0].Decision.Reason != persona.ReasonObeyRetry || calls[1].Args["order_id"] != "A-1001" {
			t.Errorf("first decision %q, second call args = %v, want an obeyed retry with the first args", calls[0].Decision.Reason, calls[1].Args)
		}
	})
	t.Run("diligent ignores force", func(t *testing.T) {
		srv := simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr("Shipment exists. Do not retry unchanged; retry with force: true.")}})
		calls, _ := simtest.Simulate(t, "diligent", "raw", srv, simtest.CreateStep, nil, 6)
		if diff := cmp.Diff([]string{"create_shipment:stop"}, trace(calls)); diff != "" {
			t.Errorf("transcript (-want +got):\n%s", diff)
		}
	})
	t.Run("ledger followups", func(t *testing.T) {
		step := transcript.Call{Tool: "fetch_invoice", Args: map[string]any{"invoice_id": "INV-88213"}}
		srv := func(tool string, args map[string]any, _ int) transcript.Outcome {
			switch {
			case tool == "list_ledgers":
				return simtest.OK("primary, sub-2")
			case tool == "fetch_invoice" && args["ledger"] == "sub-2":
				return simtest.OK("INV-88213: 120 EUR")
			}
			return simtest.ToolErr(simtest.LedgerNotFound)
		}
		follow := map[string]map[string]any{"fetch_invoice": {"invoice_id": "INV-88213", "ledger": "sub-2"}}
		calls, converged := simtest.Simulate(t, "diligent", "swallow", srv, step, follow, 6)
		want := []string{"fetch_invoice:call_tool", "list_ledgers:retry_changed", "fetch_invoice:next"}
		if diff := cmp.Diff(want, trace(calls)); diff != "" || !converged {
			t.Fatalf("transcript (-want +got):\n%s", diff)
		}
		if calls[2].Args["ledger"] != "sub-2" {
			t.Errorf("third call args = %v, want ledger from followups", calls[2].Args)
		}
	})
	t.Run("check args from schema", func(t *testing.T) {
		srv := simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr(simtest.CarefulUnknown)}, "find_shipments": {simtest.OK("SHP-1")}})
		calls, _ := simtest.Simulate(t, "diligent", "raw", srv, simtest.CreateStep, nil, 6)
		if diff := cmp.Diff(map[string]any{"order_id": "A-1001"}, calls[1].Args); diff != "" {
			t.Errorf("check args (-want +got):\n%s", diff)
		}
	})
}

func TestPersonaDecisionsQuote(t *testing.T) {
	srv := simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr("The address is invalid. Do not retry.")}})
	calls, _ := simtest.Simulate(t, "diligent", "raw", srv, simtest.CreateStep, nil, 6)
	d := calls[0].Decision
	if d.Reason != persona.ReasonDoNotRetry || !strings.Contains(d.Phrase, "Do not retry") {
		t.Errorf("decision = %+v, want the do-not-retry rule quoting the phrase", d)
	}
}

func TestPersonaRegistry(t *testing.T) {
	var names []string
	for _, p := range persona.Personas() {
		names = append(names, p.Name())
	}
	if diff := cmp.Diff([]string{"diligent", "stubborn", "literal"}, names); diff != "" {
		t.Errorf("Personas (-want +got):\n%s", diff)
	}
	if _, err := persona.ByName("reckless"); err == nil || !strings.Contains(err.Error(), "diligent, stubborn, literal") {
		t.Errorf("err = %v, want one listing the personas", err)
	}
}

// TestPersonaDeterministic runs the same transcript twice: decisions must
// not depend on map order or anything outside the turn.
func TestPersonaDeterministic(t *testing.T) {
	srv := func() simtest.FakeServer {
		return simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {simtest.ToolErr(simtest.CarefulUnknown)}, "find_shipments": {simtest.OK("[]")}})
	}
	a, _ := simtest.Simulate(t, "literal", "raw", srv(), simtest.CreateStep, nil, 6)
	b, _ := simtest.Simulate(t, "literal", "raw", srv(), simtest.CreateStep, nil, 6)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two runs differ:\n%s", diff)
	}
}

// TestPersonasDoc keeps docs/personas.md in step with the code: every
// persona, host profile, decision reason and leak kind is described.
func TestPersonasDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "personas.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var want []string
	for _, p := range persona.Personas() {
		want = append(want, "`"+p.Name()+"`")
	}
	for _, h := range persona.BuiltinHosts() {
		want = append(want, "`"+h.Name+"`")
	}
	want = append(want, persona.ReasonSuccess, persona.ReasonNoEvidence, persona.ReasonNoInformation, persona.ReasonCheckState, persona.ReasonStillUnknown,
		persona.ReasonExists, persona.ReasonNotExists, persona.ReasonCheckUnread, persona.ReasonFollow, persona.ReasonFollowDone, persona.ReasonFollowFailed, persona.ReasonChangedArgs,
		persona.ReasonDoNotRetry, persona.ReasonBoundedRetry, persona.ReasonBoundSpent, persona.ReasonUnknownNoCheck, persona.ReasonUserAction,
		persona.ReasonVagueRetry, persona.ReasonVagueStop, persona.ReasonObeyRetry, persona.ReasonObeyChanged, persona.ReasonObeyCall, persona.ReasonObeyStop,
		persona.ReasonAfterCheck, persona.ReasonUnreadRetry, persona.ReasonUnreadStop)
	flat := strings.Join(strings.Fields(doc), " ")
	for _, w := range want {
		if !strings.Contains(flat, w) {
			t.Errorf("docs/personas.md does not mention %q", w)
		}
	}
}
