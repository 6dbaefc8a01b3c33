package agentsim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeServer answers a tools/call; attempt counts calls with this tool
// and these arguments, from 1.
type fakeServer func(tool string, args map[string]any, attempt int) Outcome

// simulate is a miniature runner: enough to drive a persona through a
// one-step scenario against a scripted server, the way the real runner
// does, so persona tests read as transcripts.
func simulate(t *testing.T, personaName, hostName string, srv fakeServer, step CallRecord, followups map[string]map[string]any, budget int) ([]CallRecord, bool) {
	t.Helper()
	p, err := PersonaByName(personaName)
	if err != nil {
		t.Fatal(err)
	}
	host, err := HostByName(hostName, nil)
	if err != nil {
		t.Fatal(err)
	}
	var calls []CallRecord
	attempts := map[string]int{}
	tool, args := step.Tool, step.Args
	for len(calls) < budget {
		key := tool + argsKey(args)
		attempts[key]++
		o := srv(tool, args, attempts[key])
		c := CallRecord{N: len(calls) + 1, Step: 1, Tool: tool, Args: args, Attempt: attempts[key],
			Channel: o.Channel, Code: o.Code, Text: o.Text, Observation: host.Observe(o)}
		c.setSignals(shippingTools)
		d := p.Decide(Turn{Step: 1, StepTool: step.Tool, StepArgs: step.Args, Call: c, History: calls,
			Tools: shippingTools, Followups: followups, Budget: budget, Used: len(calls) + 1})
		if d.Reason == "" {
			t.Errorf("call %d: decision %q has no reason", c.N, d.Action)
		}
		c.Decision = d
		calls = append(calls, c)
		switch d.Action {
		case ActNext, ActStop:
			return calls, true
		}
		tool, args = d.Tool, d.Args
	}
	return calls, false
}

var createStep = CallRecord{Tool: "create_shipment", Args: map[string]any{"order_id": "A-1001", "address": "1 Main St"}}

func toolErr(text string) Outcome { return Outcome{Channel: ChannelToolError, Text: text} }
func ok(text string) Outcome      { return Outcome{Channel: ChannelSuccess, Text: text} }

// replies scripts a server: per tool, the nth call's outcome (the last
// one repeats).
func replies(script map[string][]Outcome) fakeServer {
	n := map[string]int{}
	return func(tool string, _ map[string]any, _ int) Outcome {
		r := script[tool]
		if len(r) == 0 {
			return Outcome{Channel: ChannelProtocolError, Code: -32601, Text: "unknown tool " + tool}
		}
		i := min(n[tool], len(r)-1)
		n[tool]++
		return r[i]
	}
}

// trace renders a transcript as "tool:action" steps.
func trace(calls []CallRecord) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = fmt.Sprintf("%s:%s", c.Tool, c.Decision.Action)
	}
	return out
}

func TestPersonaTranscripts(t *testing.T) {
	careless := replies(map[string][]Outcome{"create_shipment": {{Channel: ChannelProtocolError, Code: 0,
		Text: `Post "http://10.0.3.7:9000/shipments": context deadline exceeded`}}})
	careful := replies(map[string][]Outcome{
		"create_shipment": {toolErr(carefulUnknown)},
		"find_shipments":  {ok("Order A-1001 has 1 shipment(s):\n- SHP-0001, status created, to 1 Main St")},
	})
	carefulNone := replies(map[string][]Outcome{
		"create_shipment": {toolErr(carefulUnknown), ok("Created shipment SHP-0002.")},
		"find_shipments":  {ok("No shipment exists for order A-1001.")},
	})
	stillUnknown := replies(map[string][]Outcome{
		"create_shipment": {toolErr(carefulUnknown)},
		"find_shipments":  {ok("[]")},
	})
	tests := []struct {
		name, persona, host string
		srv                 fakeServer
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
		{"do not retry", "diligent", "raw", replies(map[string][]Outcome{"create_shipment": {toolErr("The address is invalid. Do not retry.")}}),
			[]string{"create_shipment:stop"}, true},
		{"transient bounded", "diligent", "raw", replies(map[string][]Outcome{"create_shipment": {toolErr("The carrier is temporarily unavailable.")}}),
			[]string{"create_shipment:retry", "create_shipment:retry", "create_shipment:stop"}, true},
		{"retry once then tell", "diligent", "raw", replies(map[string][]Outcome{"create_shipment": {toolErr(carefulUnreachable)}}),
			[]string{"create_shipment:retry", "create_shipment:stop"}, true},
		{"literal retry once then tell", "literal", "raw", replies(map[string][]Outcome{"create_shipment": {toolErr(carefulUnreachable)}}),
			[]string{"create_shipment:retry", "create_shipment:stop"}, true},
		{"vague diligent", "diligent", "raw", replies(map[string][]Outcome{"create_shipment": {toolErr("shipment failed")}}),
			[]string{"create_shipment:retry", "create_shipment:stop"}, true},
		{"vague stubborn", "stubborn", "raw", replies(map[string][]Outcome{"create_shipment": {toolErr("shipment failed")}}),
			repeat("create_shipment:retry", 6), false},
		{"try again later literal", "literal", "raw", replies(map[string][]Outcome{"create_shipment": {toolErr("Please try again later.")}}),
			repeat("create_shipment:retry", 6), false},
		{"unknown without check", "diligent", "raw", replies(map[string][]Outcome{"create_shipment": {toolErr("The outcome is unknown.")}}),
			[]string{"create_shipment:stop"}, true},
		{"user action", "diligent", "raw", replies(map[string][]Outcome{"create_shipment": {toolErr("The address is incomplete. Ask the user for the street number.")}}),
			[]string{"create_shipment:stop"}, true},
		{"next tool then stop on failure", "diligent", "raw", replies(map[string][]Outcome{
			"create_shipment": {toolErr("Order A-1001 already has a shipment. Call find_shipments.")},
			"find_shipments":  {toolErr("lookup failed")}}),
			[]string{"create_shipment:call_tool", "find_shipments:stop"}, true},
		{"next tool then done", "diligent", "raw", replies(map[string][]Outcome{
			"create_shipment": {toolErr("Order A-1001 already has a shipment. Call find_shipments.")},
			"find_shipments":  {ok("SHP-0001")}}),
			[]string{"create_shipment:call_tool", "find_shipments:next"}, true},
		{"success", "stubborn", "swallow", replies(map[string][]Outcome{"create_shipment": {ok("Created shipment SHP-0001.")}}),
			[]string{"create_shipment:next"}, true},
		{"success that is an upstream error", "diligent", "raw", replies(map[string][]Outcome{"create_shipment": {ok("502 Bad Gateway")}}),
			[]string{"create_shipment:retry", "create_shipment:stop"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, converged := simulate(t, tt.persona, tt.host, tt.srv, createStep, nil, 6)
			if diff := cmp.Diff(tt.want, trace(calls)); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
			if converged != tt.converged {
				t.Errorf("converged = %t, want %t", converged, tt.converged)
			}
		})
	}
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
		srv := replies(map[string][]Outcome{"create_shipment": {toolErr("Shipment exists. Retry with force: true."), ok("Created.")}})
		calls, _ := simulate(t, "literal", "raw", srv, createStep, nil, 6)
		// force is not an argument of create_shipment's schema, so the
		// reader gives no argument hint: literal obeys the unsafe
		// invitation by retrying, where diligent stops.
		want := []string{"create_shipment:retry", "create_shipment:next"}
		if diff := cmp.Diff(want, trace(calls)); diff != "" {
			t.Fatalf("transcript (-want +got):\n%s", diff)
		}
		if calls[0].Decision.Reason != ReasonObeyRetry || calls[1].Args["order_id"] != "A-1001" {
			t.Errorf("first decision %q, second call args = %v, want an obeyed retry with the first args", calls[0].Decision.Reason, calls[1].Args)
		}
	})
	t.Run("diligent ignores force", func(t *testing.T) {
		srv := replies(map[string][]Outcome{"create_shipment": {toolErr("Shipment exists. Do not retry unchanged; retry with force: true.")}})
		calls, _ := simulate(t, "diligent", "raw", srv, createStep, nil, 6)
		if diff := cmp.Diff([]string{"create_shipment:stop"}, trace(calls)); diff != "" {
			t.Errorf("transcript (-want +got):\n%s", diff)
		}
	})
	t.Run("ledger followups", func(t *testing.T) {
		step := CallRecord{Tool: "fetch_invoice", Args: map[string]any{"invoice_id": "INV-88213"}}
		srv := func(tool string, args map[string]any, _ int) Outcome {
			switch {
			case tool == "list_ledgers":
				return ok("primary, sub-2")
			case tool == "fetch_invoice" && args["ledger"] == "sub-2":
				return ok("INV-88213: 120 EUR")
			}
			return toolErr(ledgerNotFound)
		}
		follow := map[string]map[string]any{"fetch_invoice": {"invoice_id": "INV-88213", "ledger": "sub-2"}}
		calls, converged := simulate(t, "diligent", "swallow", srv, step, follow, 6)
		want := []string{"fetch_invoice:call_tool", "list_ledgers:retry_changed", "fetch_invoice:next"}
		if diff := cmp.Diff(want, trace(calls)); diff != "" || !converged {
			t.Fatalf("transcript (-want +got):\n%s", diff)
		}
		if calls[2].Args["ledger"] != "sub-2" {
			t.Errorf("third call args = %v, want ledger from followups", calls[2].Args)
		}
	})
	t.Run("check args from schema", func(t *testing.T) {
		srv := replies(map[string][]Outcome{"create_shipment": {toolErr(carefulUnknown)}, "find_shipments": {ok("SHP-1")}})
		calls, _ := simulate(t, "diligent", "raw", srv, createStep, nil, 6)
		if diff := cmp.Diff(map[string]any{"order_id": "A-1001"}, calls[1].Args); diff != "" {
			t.Errorf("check args (-want +got):\n%s", diff)
		}
	})
}

func TestPersonaDecisionsQuote(t *testing.T) {
	srv := replies(map[string][]Outcome{"create_shipment": {toolErr("The address is invalid. Do not retry.")}})
	calls, _ := simulate(t, "diligent", "raw", srv, createStep, nil, 6)
	d := calls[0].Decision
	if d.Reason != ReasonDoNotRetry || !strings.Contains(d.Phrase, "Do not retry") {
		t.Errorf("decision = %+v, want the do-not-retry rule quoting the phrase", d)
	}
}

func TestPersonaRegistry(t *testing.T) {
	var names []string
	for _, p := range Personas() {
		names = append(names, p.Name())
	}
	if diff := cmp.Diff([]string{"diligent", "stubborn", "literal"}, names); diff != "" {
		t.Errorf("Personas (-want +got):\n%s", diff)
	}
	if _, err := PersonaByName("reckless"); err == nil || !strings.Contains(err.Error(), "diligent, stubborn, literal") {
		t.Errorf("err = %v, want one listing the personas", err)
	}
}

// TestPersonaDeterministic runs the same transcript twice: decisions must
// not depend on map order or anything outside the turn.
func TestPersonaDeterministic(t *testing.T) {
	srv := func() fakeServer {
		return replies(map[string][]Outcome{"create_shipment": {toolErr(carefulUnknown)}, "find_shipments": {ok("[]")}})
	}
	a, _ := simulate(t, "literal", "raw", srv(), createStep, nil, 6)
	b, _ := simulate(t, "literal", "raw", srv(), createStep, nil, 6)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two runs differ:\n%s", diff)
	}
}

// TestPersonasDoc keeps docs/personas.md in step with the code: every
// persona, host profile, decision reason and leak kind is described.
func TestPersonasDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "personas.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var want []string
	for _, p := range Personas() {
		want = append(want, "`"+p.Name()+"`")
	}
	for _, h := range BuiltinHosts() {
		want = append(want, "`"+h.Name+"`")
	}
	want = append(want, ReasonSuccess, ReasonNoEvidence, ReasonNoInformation, ReasonCheckState, ReasonStillUnknown,
		ReasonExists, ReasonNotExists, ReasonFollow, ReasonFollowDone, ReasonFollowFailed, ReasonChangedArgs,
		ReasonDoNotRetry, ReasonBoundedRetry, ReasonBoundSpent, ReasonUnknownNoCheck, ReasonUserAction,
		ReasonVagueRetry, ReasonVagueStop, ReasonObeyRetry, ReasonObeyChanged, ReasonObeyCall, ReasonObeyStop,
		ReasonAfterCheck, ReasonUnreadRetry, ReasonUnreadStop)
	flat := strings.Join(strings.Fields(doc), " ")
	for _, w := range want {
		if !strings.Contains(flat, w) {
			t.Errorf("docs/personas.md does not mention %q", w)
		}
	}
}
