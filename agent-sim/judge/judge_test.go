package judge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

const goodToolError = "The carrier is unavailable. Nothing was created. Retry once in a minute; if it fails again, stop and tell the user."

func TestChecks(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		trip bool // the check must report (true) or stay silent (false)
		id   string
	}{
		{"MC001 trips", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelProtocolError, 0, "context deadline exceeded"), []string{"lose reply"}, 1, 1)}, Converged: true}, true, "MC001"},
		{"MC001 passes on tool error", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelToolError, 0, goodToolError), []string{"lose reply"}, 1, 1)}, Converged: true}, false, "MC001"},
		{"MC001 passes without traffic", Input{Calls: []transcript.Call{simtest.Rec(1, "create_shipment", transcript.ChannelProtocolError, -32601, "unknown tool")}, Converged: true}, false, "MC001"},
		{"MC002 trips", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelNoResponse, 0, ""), simtest.Rec(2, "t", transcript.ChannelNoResponse, 0, "")}, Budget: 2}, true, "MC002"},
		{"MC002 passes converged", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelSuccess, 0, "ok"), simtest.Rec(2, "t", transcript.ChannelSuccess, 0, "ok")}, Budget: 2, Converged: true}, false, "MC002"},
		{"MC003 trips", Input{SideEffects: []transcript.SideEffectCount{{Name: "shipment", Intended: 1, Committed: 2}}, Converged: true}, true, "MC003"},
		{"MC003 passes", Input{SideEffects: []transcript.SideEffectCount{{Name: "shipment", Intended: 1, Committed: 1}}, Converged: true}, false, "MC003"},
		{"MC003 ignores failed probe", Input{SideEffects: []transcript.SideEffectCount{{Name: "shipment", Intended: 0, Committed: 3, Error: "probe failed"}}, Converged: true}, false, "MC003"},
		{"MC004 trips on definite failure", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelToolError, 0, "Shipment failed. Do not retry."), []string{"lose reply"}, 1, 1)}, Converged: true}, true, "MC004"},
		{"MC004 passes when unknown is stated", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelToolError, 0, simtest.CarefulUnknown), []string{"lose reply"}, 1, 1)}, Converged: true}, false, "MC004"},
		{"MC004 trips on a blackhole (outcome unknown)", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelToolError, 0, "The carrier is unreachable. Do not retry."), []string{"blackhole"}, 0, 0)}, Converged: true}, true, "MC004"},
		{"MC004 trips on an error after the upstream committed", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelToolError, 0, "Shipment failed. Do not retry."), []string{"late error"}, 1, 1)}, Converged: true}, true, "MC004"},
		{"MC004 passes on a 503 before the upstream", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelToolError, 0, "Shipment failed. Do not retry."), []string{"503"}, 1, 0)}, Converged: true}, false, "MC004"},
		{"MC004 passes on refused connection", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelToolError, 0, simtest.CarefulUnreachable), []string{"refuse"}, 0, 0)}, Converged: true}, false, "MC004"},
		{"MC004 passes on reads", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "find_shipments", transcript.ChannelToolError, 0, "lookup failed"), []string{"lose reply"}, 1, 1)}, Tools: simtest.ShippingTools, Converged: true}, false, "MC004"},
		{"MC005 trips", Input{Calls: []transcript.Call{simtest.Rec(1, "get_shipment", transcript.ChannelToolError, 0, "Shipment not found. Call find_shipments.")}, Converged: true}, true, "MC005"},
		{"MC005 trips on unbounded transient", Input{Calls: []transcript.Call{simtest.Rec(1, "get_shipment", transcript.ChannelToolError, 0, "Try again later.")}, Converged: true}, true, "MC005"},
		{"MC005 passes", Input{Calls: []transcript.Call{simtest.Rec(1, "get_shipment", transcript.ChannelToolError, 0, goodToolError)}, Converged: true}, false, "MC005"},
		{"MC006 trips", Input{Calls: []transcript.Call{simtest.Rec(1, "get_shipment", transcript.ChannelToolError, 0, "Shipment not found. Do not retry.")}, Converged: true}, true, "MC006"},
		{"MC006 passes", Input{Calls: []transcript.Call{simtest.Rec(1, "get_shipment", transcript.ChannelToolError, 0, simtest.LedgerNotFound)}, Tools: simtest.ShippingTools, Converged: true}, false, "MC006"},
		{"MC007 trips on tool error", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelToolError, 0, "dial tcp 10.0.3.7:5432: connection refused")}, Internal: []string{"10.0.3.7:5432"}, Converged: true}, true, "MC007"},
		{"MC007 ignores an address the run does not know", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelToolError, 0, "dial tcp 140.82.112.6:443: connection refused")}, Internal: []string{"10.0.3.7:5432"}, Converged: true}, false, "MC007"},
		{"MC007 trips on a source location", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelToolError, 0, "panic: nil map at handler.go:42")}, Converged: true}, true, "MC007"},
		{"MC007 trips on protocol error", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelProtocolError, -32603, "pq: relation \"shipments\" does not exist")}, Converged: true}, true, "MC007"},
		{"MC007 ignores a secrets tool's answer", Input{Calls: []transcript.Call{simtest.Rec(1, "read_secret", transcript.ChannelSuccess, 0, `{"password":"Zq8!vR2m-prod","username":"app_rw"}`)}, Converged: true}, false, "MC007"},
		{"MC007 trips on a secret in another tool's answer", Input{Calls: []transcript.Call{simtest.Rec(1, "get_order", transcript.ChannelSuccess, 0, `{"order":"A-1","db_password":"Zq8!vR2m-prod"}`)}, Converged: true}, true, "MC007"},
		{"MC007 trips on a success a fault hit", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "t", transcript.ChannelSuccess, 0, "save failed: pq: relation \"shipments\" does not exist"), []string{"lose reply"}, 1, 1)}, Converged: true}, true, "MC007"},
		{"MC007 ignores a payload on a success a fault hit", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "t", transcript.ChannelSuccess, 0, "Top statements:\n1. SELECT id FROM shipments WHERE carrier = $1 (812 ms)"), []string{"lose reply"}, 1, 1)}, Converged: true}, false, "MC007"},
		{"MC007 ignores a success's own data", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelSuccess, 0, "saved to /var/lib/app/out.json; SELECT id FROM users")}, Converged: true}, false, "MC007"},
		{"MC007 trips on an internal value on success", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelSuccess, 0, "order saved via ledger.corp.example:8443")},
			Internal: []string{"https://ledger.corp.example:8443/v1"}, Converged: true}, true, "MC007"},
		{"MC007 ignores the driver's text", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelTransportError, 0, "dial tcp 127.0.0.1:8080: connection refused")}, Converged: true}, false, "MC007"},
		{"MC007 passes", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelToolError, 0, goodToolError)}, Converged: true}, false, "MC007"},
		{"MC008 trips on cut write", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelSuccess, 0, "Created."), []string{"cut request"}, 1, 0)}, Converged: true}, true, "MC008"},
		{"MC008 trips on a refused dial", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelSuccess, 0, "Created."), []string{"refuse"}, 0, 0)}, Converged: true}, true, "MC008"},
		{"MC008 passes when the fault committed", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelSuccess, 0, "Created."), []string{"late error"}, 1, 0)}, Converged: true}, false, "MC008"},
		{"MC008 trips on error text after a partial write", Input{Calls: []transcript.Call{partialNoExchange(simtest.Rec(1, "find_shipments", transcript.ChannelSuccess, 0, "502 Bad Gateway"))}, Converged: true}, true, "MC008"},
		{"MC008 passes error text after a lost reply", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "find_shipments", transcript.ChannelSuccess, 0, "502 Bad Gateway"), []string{"lose reply"}, 1, 1)}, Converged: true}, false, "MC008"},
		{"MC008 passes error text after an unknown outcome", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "find_shipments", transcript.ChannelSuccess, 0, "Error: connection reset by peer"), []string{"blackhole"}, 0, 0)}, Converged: true}, false, "MC008"},
		{"MC008 ignores a read's error text", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "find_shipments", transcript.ChannelSuccess, 0, "502 Bad Gateway"), []string{"lose reply"}, 1, 1)},
			WriteTools: map[string]bool{"find_shipments": false}, Converged: true}, false, "MC008"},
		{"MC008 ignores error text no fault hit", Input{Calls: []transcript.Call{simtest.Rec(1, "health", transcript.ChannelSuccess, 0, "billing: HTTP 503 Service Unavailable")}, Converged: true}, false, "MC008"},
		{"MC008 trips on flag", Input{Calls: []transcript.Call{func() transcript.Call {
			c := partialNoExchange(simtest.Rec(1, "find_shipments", transcript.ChannelSuccess, 0, "upstream said no"))
			c.UpstreamErrorAsSuccess = true
			return c
		}()}, Converged: true}, true, "MC008"},
		{"MC008 passes committed", Input{Calls: []transcript.Call{simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelSuccess, 0, "Created."), []string{"slow"}, 1, 1)}, Converged: true}, false, "MC008"},
		{"MC009 trips on idempotent duplicate", Input{
			Tools:       []transcript.Tool{{Name: "create_shipment", Idempotent: true}},
			Calls:       []transcript.Call{simtest.Rec(1, "create_shipment", transcript.ChannelNoResponse, 0, ""), simtest.Rec(2, "create_shipment", transcript.ChannelSuccess, 0, "ok")},
			SideEffects: []transcript.SideEffectCount{{Name: "shipment", Intended: 1, Committed: 2}}, Converged: true}, true, "MC009"},
		{"MC009 trips on read-only writer", Input{
			Tools: []transcript.Tool{{Name: "find_shipments", ReadOnly: true}}, WriteTools: map[string]bool{"find_shipments": true},
			Calls: []transcript.Call{simtest.Rec(1, "find_shipments", transcript.ChannelSuccess, 0, "ok")}, Converged: true}, true, "MC009"},
		{"MC009 passes idempotent without duplicate", Input{
			Tools:       []transcript.Tool{{Name: "create_shipment", Idempotent: true}},
			Calls:       []transcript.Call{simtest.Rec(1, "create_shipment", transcript.ChannelNoResponse, 0, ""), simtest.Rec(2, "create_shipment", transcript.ChannelSuccess, 0, "ok")},
			SideEffects: []transcript.SideEffectCount{{Name: "shipment", Intended: 1, Committed: 1}}, Converged: true}, false, "MC009"},
		{"MC010 trips", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelToolError, 0, "Conflict. Retry with force: true.")}, Converged: true}, true, "MC010"},
		{"MC010 passes", Input{Calls: []transcript.Call{simtest.Rec(1, "t", transcript.ChannelToolError, 0, goodToolError)}, Converged: true}, false, "MC010"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *Finding
			for _, f := range Judge(tt.in) {
				if f.ID == tt.id {
					got = &f
					break
				}
			}
			switch {
			case tt.trip && got == nil:
				t.Fatalf("no %s finding in %+v", tt.id, Judge(tt.in))
			case !tt.trip && got != nil:
				t.Fatalf("unexpected %s: %s", tt.id, got.Evidence)
			case got != nil && (got.Evidence == "" || got.Hint == "" || got.Title == "" || got.Severity == ""):
				t.Errorf("incomplete finding: %+v", *got)
			}
		})
	}
}

func TestCheckValidation(t *testing.T) {
	tests := []struct {
		name, version string
		call          transcript.Call
		want          Severity // "" = no finding
	}{
		{"old -32602", "2025-06-18", simtest.Rec(1, "t", transcript.ChannelProtocolError, -32602, "invalid params"), ""},
		{"old isError", "2025-06-18", simtest.Rec(1, "t", transcript.ChannelToolError, 0, "order_id is required"), SeverityInfo},
		{"old -32603", "2025-06-18", simtest.Rec(1, "t", transcript.ChannelProtocolError, -32603, "internal error"), SeverityError},
		{"new isError", "2025-11-25", simtest.Rec(1, "t", transcript.ChannelToolError, 0, "order_id is required"), ""},
		{"new -32602", "2025-11-25", simtest.Rec(1, "t", transcript.ChannelProtocolError, -32602, "invalid params"), SeverityInfo},
		{"stateless -32603", "2026-07-28", simtest.Rec(1, "t", transcript.ChannelProtocolError, -32603, "internal error"), SeverityError},
		{"other code", "2026-07-28", simtest.Rec(1, "t", transcript.ChannelProtocolError, 0, "bad"), SeverityError},
		{"accepted invalid input", "2025-11-25", simtest.Rec(1, "t", transcript.ChannelSuccess, 0, "ok"), SeverityError},
		{"unknown version isError", "", simtest.Rec(1, "t", transcript.ChannelToolError, 0, "order_id is required"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Calls: []transcript.Call{simtest.WithTraffic(tt.call, nil, 1, 0)}, ProtocolVersion: tt.version,
				ValidationCalls: map[int]bool{1: true}, Converged: true}
			var got Severity
			for _, f := range Judge(in) {
				switch f.ID {
				case "MC011":
					got = f.Severity
				case "MC001", "MC005":
					t.Errorf("validation call also judged by %s", f.ID)
				}
			}
			if got != tt.want {
				t.Errorf("MC011 severity = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestJudgeDedupAndOrder(t *testing.T) {
	in := Input{Converged: true, Calls: []transcript.Call{
		simtest.Rec(1, "get_shipment", transcript.ChannelToolError, 0, "not found"),
		simtest.Rec(2, "get_shipment", transcript.ChannelToolError, 0, "still not found"),
		simtest.Rec(3, "find_shipments", transcript.ChannelToolError, 0, "nope"),
	}}
	var got []string
	for _, f := range Judge(in) {
		got = append(got, f.ID+" "+f.Tool)
		if f.ID == "MC005" && f.Tool == "get_shipment" && f.Call != 1 {
			t.Errorf("MC005 kept call %d, want the first (1)", f.Call)
		}
	}
	want := []string{"MC005 get_shipment", "MC005 find_shipments", "MC006 get_shipment", "MC006 find_shipments"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestHeadlineJudged grades the two transcripts of the headline
// comparison: the careless server under swallow loops and duplicates; the
// careful one is clean.
func TestHeadlineJudged(t *testing.T) {
	careless, _ := simtest.Simulate(t, "diligent", "swallow", simtest.Replies(map[string][]transcript.Outcome{"create_shipment": {{Channel: transcript.ChannelProtocolError,
		Text: `Post "http://carrier.internal:9000/shipments": context deadline exceeded`}}}), simtest.CreateStep, nil, 4)
	for i := range careless {
		careless[i] = simtest.WithTraffic(careless[i], []string{"lose reply"}, 1, 1)
	}
	bad := Judge(Input{Calls: careless, Tools: simtest.ShippingTools, Budget: 4, Internal: []string{"http://carrier.internal:9000"},
		SideEffects: []transcript.SideEffectCount{{Name: "shipment created", Intended: 1, Committed: 4}}})
	if diff := cmp.Diff([]string{"MC001", "MC002", "MC003", "MC007"}, ids(bad)); diff != "" {
		t.Errorf("careless findings (-want +got):\n%s", diff)
	}
	careful, converged := simtest.Simulate(t, "diligent", "swallow", simtest.Replies(map[string][]transcript.Outcome{
		"create_shipment": {simtest.ToolErr(simtest.CarefulUnknown)}, "find_shipments": {simtest.OK("Order A-1001 has 1 shipment(s).")}}), simtest.CreateStep, nil, 4)
	careful[0] = simtest.WithTraffic(careful[0], []string{"lose reply"}, 1, 1)
	good := Judge(Input{Calls: careful, Tools: simtest.ShippingTools, Budget: 4, Converged: converged,
		SideEffects: []transcript.SideEffectCount{{Name: "shipment created", Intended: 1, Committed: 1}}})
	if len(good) != 0 || len(careful) != 2 {
		t.Errorf("careful: %d calls, findings %v; want 2 calls and none", len(careful), good)
	}
}

func TestChecksTable(t *testing.T) {
	cs := Checks()
	if len(cs) != 14 {
		t.Fatalf("%d checks, want 14", len(cs))
	}
	for i, c := range cs {
		if want := fmt.Sprintf("MC%03d", i+1); c.ID != want {
			t.Errorf("check %d is %s, want %s", i, c.ID, want)
		}
		if c.Title == "" || c.Doc == "" || c.Hint == "" || c.Severity.Rank() == 0 {
			t.Errorf("%s is incomplete: %+v", c.ID, c)
		}
	}
}

// TestChecksDoc keeps docs/checks.md in step with the check table: a
// section per check, headed by its ID and title, with a bad and a good
// reply.
func TestChecksDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "checks.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, c := range Checks() {
		head := "## " + c.ID + " — " + c.Title
		i := strings.Index(doc, head)
		if i < 0 {
			t.Errorf("docs/checks.md has no section %q", head)
			continue
		}
		section := doc[i+len(head):]
		if j := strings.Index(section, "\n## "); j >= 0 {
			section = section[:j]
		}
		if !strings.Contains(section, "Bad") || !strings.Contains(section, "Good") {
			t.Errorf("section %s lacks a bad or a good reply", c.ID)
		}
		if !strings.Contains(doc, "| "+c.ID+" | "+string(c.Severity)) {
			t.Errorf("docs/checks.md's table does not give %s severity %s", c.ID, c.Severity)
		}
	}
}

func TestAmbiguousStatedCommitted(t *testing.T) {
	call := transcript.Call{N: 1, Tool: "create_shipment", Attempt: 1, Channel: transcript.ChannelToolError,
		Text:       "The shipment for order A-1001 was created, but the carrier's reply was cut off. Do not retry create_shipment: call find_shipments to get its id.",
		Injections: []string{"cut"}, Exchanges: 1, Faults: []transcript.InjectionRecord{simtest.RuleOutcomes["cut"]}}
	in := Input{Calls: []transcript.Call{call}, WriteTools: map[string]bool{"create_shipment": true},
		Converged: true, Budget: 6}
	has := func(fs []Finding) bool {
		for _, f := range fs {
			if f.ID == "MC004" {
				return true
			}
		}
		return false
	}
	if !has(Judge(in)) {
		t.Error("a claim of commit that the upstream does not confirm passed MC004")
	}
	in.Calls[0].Committed = 1
	if has(Judge(in)) {
		t.Error("a true claim of commit tripped MC004")
	}
}

func ids(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

// A reply that says which part of a partially applied write happened
// states the truth MC004 asks for; the same words after a fault that lost
// the whole write's reply claim a definite outcome.
func TestAmbiguousStatedPartByPart(t *testing.T) {
	text := "Work order WO-5120 was created, but sending it to the vendor failed, so nobody has been told yet. Do not create it again."
	mc004 := func(outcome inject.Outcome) bool {
		call := transcript.Call{N: 1, Tool: "create_work_order", Attempt: 1, Channel: transcript.ChannelToolError, Text: text,
			Injections: []string{"rule"}, Exchanges: 1, Faults: []transcript.InjectionRecord{{Kind: "partial_write", Outcome: outcome}}}
		for _, f := range Judge(Input{Calls: []transcript.Call{call}, WriteTools: map[string]bool{"create_work_order": true}, Converged: true, Budget: 6}) {
			if f.ID == "MC004" {
				return true
			}
		}
		return false
	}
	if mc004(inject.OutcomePartiallyApplied) {
		t.Error("a partial write stated part by part tripped MC004")
	}
	if !mc004(inject.OutcomeUnknown) {
		t.Error("a definite outcome after a fault of unknown outcome passed MC004")
	}
}

// partialNoExchange is c hit by a fault that declares a partial write,
// with no exchange recorded to say what committed: the reply's own text
// is then all MC008 can go by.
func partialNoExchange(c transcript.Call) transcript.Call {
	c.Injections = []string{"partial"}
	c.Faults = []transcript.InjectionRecord{{Rule: "partial", Kind: "partial_write", Outcome: inject.OutcomePartiallyApplied, Hits: 1}}
	return c
}
