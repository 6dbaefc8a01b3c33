package scenario

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
)

func TestLoadScenarioExample(t *testing.T) {
	sc, err := Load("testdata/scenarios/shipping.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "create_shipment survives a lost reply" || sc.File != "testdata/scenarios/shipping.yaml" {
		t.Errorf("name %q file %q", sc.Name, sc.File)
	}
	wantAgent := AgentSettings{
		Personas: []string{"diligent", "stubborn"}, Hosts: []string{"swallow", "generic", "raw", "cursor-like"},
		HostProfiles: []persona.HostProfile{{Name: "cursor-like", ProtocolError: "generic", GenericText: "The tool failed.", NoResponse: "nothing"}},
		Budget:       8, CallTimeout: 5 * time.Second, LateGrace: 10 * time.Second, WriteTools: []string{"create_shipment"},
	}
	if d := cmp.Diff(wantAgent, sc.Agent); d != "" {
		t.Errorf("agent (-want +got):\n%s", d)
	}
	wantSteps := []Step{
		{Tool: "create_shipment", Args: map[string]any{"order_id": "A-1001", "address": "1 Main St"}, Line: 34},
		{Tool: "create_shipment", Args: map[string]any{"order_id": "", "address": "1 Main St"}, Invalid: true, Line: 36},
	}
	if d := cmp.Diff(wantSteps, sc.Steps); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]map[string]any{"find_shipments": {"order_id": "A-1001"}}, sc.Followups); d != "" {
		t.Errorf("followups: %s", d)
	}
	if d := cmp.Diff(map[string]int{"find_shipments": 40}, sc.FollowupLines); d != "" {
		t.Errorf("followup lines: %s", d)
	}
	if len(sc.SideEffects) != 3 || sc.SideEffects[1].Probe == nil || sc.SideEffects[1].Intended != 1 ||
		sc.SideEffects[1].Probe.Timeout != 2*time.Second || sc.SideEffects[2].Probe.Timeout != defaultProbeTimeout {
		t.Errorf("side effects %+v", sc.SideEffects)
	}
	if sc.Expect != (Expect{MaxCalls: 3, FailOn: judge.SeverityError}) || len(sc.Rules) != 1 || len(sc.Upstreams) != 2 {
		t.Errorf("expect %+v, %d rules, %d upstreams", sc.Expect, len(sc.Rules), len(sc.Upstreams))
	}
	spec, err := sc.ResolveServer([]inject.UpstreamInfo{
		{Name: "carrier", Protocol: "http", Listen: "127.0.0.1:4001", Target: "http://127.0.0.1:9000"},
		{Name: "db", Protocol: "tcp", Listen: "127.0.0.1:4002", Target: "127.0.0.1:5432"},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := driver.ServerSpec{Command: []string{"./bin/shipping-mcp", "--carrier", "http://127.0.0.1:4001"},
		Env: map[string]string{"CARRIER_URL": "http://127.0.0.1:4001", "DB_ADDR": "127.0.0.1:4002"}, Protocol: "2025-11-25"}
	if d := cmp.Diff(want, spec, cmp.Comparer(func(a, b driver.ServerSpec) bool {
		return cmp.Equal(a.Command, b.Command) && cmp.Equal(a.Env, b.Env) && a.Protocol == b.Protocol && a.URL == b.URL
	})); d != "" {
		t.Errorf("resolved (-want +got):\n%s", d)
	}
	if sc.Server.Env["CARRIER_URL"] != `{{ upstream "carrier" }}` {
		t.Error("ResolveServer changed the scenario")
	}
}

func TestParseScenarioDefaults(t *testing.T) {
	sc, err := Parse("dir/min.yaml", []byte("server: {url: http://127.0.0.1:8080/mcp}\nsteps:\n  - tool: ping\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "min" || sc.Agent.Budget != DefaultBudget || sc.Agent.CallTimeout != DefaultCallTimeout ||
		!cmp.Equal(sc.Agent.Personas, []string{"diligent"}) || !cmp.Equal(sc.Agent.Hosts, []string{"swallow", "generic", "raw"}) ||
		sc.Expect.FailOn != judge.SeverityError {
		t.Errorf("%+v", sc)
	}
	sc, err = Parse("n.yaml", []byte("server: {command: x}\nsteps: [{tool: a}]\nexpect: {fail_on: never}\nagent: {personas: literal}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Expect.FailOn != "" || !cmp.Equal(sc.Agent.Personas, []string{"literal"}) || !cmp.Equal(sc.Server.Command, []string{"x"}) {
		t.Errorf("%+v", sc)
	}
}

func TestParseScenarioErrors(t *testing.T) {
	const srv = "server: {command: [./s]}\n"
	const steps = "steps:\n  - tool: create\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unknown top", srv + steps + "stesp: []\n", `s.yaml:4: stesp: unknown field "stesp" (did you mean "steps"?)`},
		{"no server", steps, "s.yaml:1: server: is required"},
		{"server both", "server:\n  command: [a]\n  url: http://x\n" + steps, "s.yaml:3: server.url: give a command or a url, not both"},
		{"server command string", "server:\n  command: ./s --flag\n" + steps, `s.yaml:2: server.command: write the command as a list`},
		{"server command blank", "server:\n  command: ' '\n" + steps, "s.yaml:2: server.command: the program name is empty"},
		{"server protocol", "server:\n  command: [a]\n  protocol: 2024-01-01\n" + steps, `s.yaml:3: server.protocol: "2024-01-01" is not a protocol version`},
		{"template unknown upstream", "server:\n  command: [a]\n  env:\n    U: '{{ upstream \"carier\" }}'\n" + steps, `s.yaml:4: server.env.U: template: error calling upstream: "carier" is not declared under upstreams`},
		{"template range", "server:\n  command: ['{{ range 9 }}x{{ end }}']\n" + steps, "s.yaml:2: server.command[0]: template: only {{ upstream"},
		{"template syntax", "server:\n  url: 'http://{{ upstream }'\n" + steps, "s.yaml:2: server.url: template: "},
		{"no steps", srv, "s.yaml:1: steps: at least one step is required"},
		{"step tool", srv + "steps:\n  - args: {a: 1}\n", "s.yaml:3: steps[0].tool: is required"},
		{"step field", srv + "steps:\n  - tool: a\n    invalid: yes\n", "s.yaml:4: steps[0].invalid: must be true or false"},
		{"step args list", srv + "steps:\n  - tool: a\n    args: [1]\n", "s.yaml:4: steps[0].args: must be a mapping"},
		{"persona", srv + steps + "agent:\n  personas: [diligent, lazy]\n", `s.yaml:5: agent.personas[1]: unknown persona "lazy"`},
		{"host", srv + steps + "agent:\n  hosts:\n    - raw\n    - cursor\n", `s.yaml:7: agent.hosts[1]: unknown host profile "cursor"`},
		{"host twice", srv + steps + "agent:\n  hosts: [raw, raw]\n", `s.yaml:5: agent.hosts[1]: "raw" is listed twice`},
		{"host profile", srv + steps + "agent:\n  host_profiles:\n    - name: x\n      protocol_error: hide\n", `s.yaml:6: agent.host_profiles[0]: host profile "x": protocol_error: "hide" is not`},
		{"budget", srv + steps + "agent:\n  budget: 0\n", "s.yaml:5: agent.budget: must be at least 1"},
		{"call timeout", srv + steps + "agent:\n  call_timeout: soon\n", `s.yaml:5: agent.call_timeout: "soon" is not a duration (write it like 250ms, 2s or 1m30s)`},
		{"rule", srv + steps + "rules:\n  - name: r\n    when: metod == 1\n    fault: {kind: reset}\n", "s.yaml:6:11: rules[0].when: unknown name metod"},
		{"rule fault param", srv + steps + "rules:\n  - name: r\n    fault:\n      kind: latency\n      delay: fast\n", `s.yaml:8: rules[0].fault.delay: "fast" is not a duration`},
		{"upstream", srv + steps + "upstreams:\n  - name: u\n    protocol: udp\n    target: 127.0.0.1:1\n", `s.yaml:6: upstreams[0].protocol: must be tcp, http or forward`},
		{"side effect neither", srv + steps + "side_effects:\n  - name: x\n", "s.yaml:5: side_effects[0]: give either match"},
		{"side effect match", srv + steps + "side_effects:\n  - name: x\n    match: method == \"POST\" && stauts < 300\n", "s.yaml:6:32: side_effects[0].match: unknown name stauts"},
		{"side effect type", srv + steps + "side_effects:\n  - name: x\n    match: status\n", "s.yaml:6:"},
		{"side effect upstream", srv + steps + "side_effects:\n  - name: x\n    upstream: nope\n    match: 'true'\n", `s.yaml:6: side_effects[0].upstream: "nope" is not declared`},
		{"side effect intended", srv + steps + "side_effects:\n  - name: x\n    match: 'true'\n    intended: -1\n", "s.yaml:7: side_effects[0].intended: must not be negative"},
		{"probe both", srv + steps + "side_effects:\n  - name: x\n    probe:\n      http: http://x\n      command: [wc]\n", "s.yaml:7: side_effects[0].probe: give either http"},
		{"probe expr", srv + steps + "side_effects:\n  - name: x\n    probe:\n      http: http://x\n      expr: len(body) +\n", "s.yaml:8:"},
		{"probe expr on command", srv + steps + "side_effects:\n  - name: x\n    probe:\n      command: [wc]\n      expr: '1'\n", "s.yaml:8: side_effects[0].probe.expr: applies to http probes only"},
		{"expect", srv + steps + "expect:\n  fail_on: fatal\n", `s.yaml:5: expect.fail_on: "fatal" is not a severity`},
		{"followups", srv + steps + "followups:\n  find: [1]\n", "s.yaml:5: followups.find: must be a mapping"},
		{"yaml", srv + steps + "agent: [\n", "s.yaml:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tc.src))
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("want *config.Error, got %T %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got  %s\nwant %s…", err, tc.want)
			}
		})
	}
}

func TestLoadScenarioMissing(t *testing.T) {
	_, err := Load("testdata/scenarios/nope.yaml")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v", err)
	}
}

func FuzzParseScenario(f *testing.F) {
	if b, err := os.ReadFile("testdata/scenarios/shipping.yaml"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		"", "server: {url: x}\nsteps: [{tool: a}]\n", "server: {command: ['{{ upstream \"a\" }}']}\nsteps: [{tool: a}]\n",
		"side_effects: [{name: a, match: 'status <'}]", "agent: {hosts: [raw, raw]}", "steps: [{tool: a, args: &x {b: *x}}]",
		"server: {command: [a], proxy_env: true, intercept_tls: true, resolve: ['a.test:443=127.0.0.1:1']}\nupstreams: [{name: l, host: a.test}]\n" +
			"rules: [{name: r, upstream: l, fault: {kind: reset}}]\nsteps: [{tool: a}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("f.yaml", data)
		if err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error is not *config.Error: %T %v", err, err)
			}
			return
		}
		if len(sc.Steps) == 0 || sc.Agent.Budget < 1 {
			t.Fatalf("accepted an unusable scenario: %+v", sc)
		}
	})
}

// TestTemplateAddrs checks the host:port templates, which the report's
// placeholders also use.
func TestTemplateAddrs(t *testing.T) {
	ups := []inject.UpstreamInfo{
		{Name: "carrier", Protocol: "http", Listen: "127.0.0.1:4001", Target: "http://127.0.0.1:9000/v1"},
		{Name: "db", Protocol: "tcp", Listen: "127.0.0.1:4002", Target: "127.0.0.1:5432"},
	}
	for in, want := range map[string]string{
		`{{ upstream "carrier" }}`:      "http://127.0.0.1:4001",
		`{{ upstream_addr "carrier" }}`: "127.0.0.1:4001",
		`{{ target "carrier" }}`:        "http://127.0.0.1:9000/v1",
		`{{ target_addr "carrier" }}`:   "127.0.0.1:9000",
		`{{ upstream "db" }}`:           "127.0.0.1:4002",
		`{{ target_addr "db" }}`:        "127.0.0.1:5432",
	} {
		if got, err := expandTemplate(in, ups, ""); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", in, got, err, want)
		}
	}
}
