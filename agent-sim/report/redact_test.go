package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// redactScenario has a built-in http upstream, a tcp one and an http one
// whose target the scenario wrote itself.
func redactScenario(t *testing.T) (*scenario.Scenario, []inject.UpstreamInfo) {
	t.Helper()
	sc, err := scenario.Parse("r.yaml", []byte(`server: {command: [srv]}
upstreams:
  - {name: carrier, protocol: http, target: builtin:carrier}
  - {name: cache, protocol: tcp, target: 127.0.0.1:6379}
  - {name: bank, protocol: http, target: http://127.0.0.1:9000}
steps: [{tool: x}]
`))
	if err != nil {
		t.Fatal(err)
	}
	ups := []inject.UpstreamInfo{
		{Name: "carrier", Protocol: inject.ProtocolHTTP, Listen: "127.0.0.1:41234", Target: "http://127.0.0.1:38001"},
		{Name: "cache", Protocol: inject.ProtocolTCP, Listen: "127.0.0.1:41235", Target: "127.0.0.1:6379"},
		{Name: "bank", Protocol: inject.ProtocolHTTP, Listen: "127.0.0.1:4123", Target: "http://127.0.0.1:9000"},
	}
	return sc, ups
}

func TestRedactorReplace(t *testing.T) {
	sc, ups := redactScenario(t)
	r := newRedactor(sc.Placeholders(ups, "/tmp/go-build123/b001/mcpchaos.test"))
	for _, tc := range []struct{ in, want string }{
		{`Post "http://127.0.0.1:41234/shipments": EOF`, `Post "{{ upstream "carrier" }}/shipments": EOF`},
		{"dial tcp 127.0.0.1:41234: connection refused", `dial tcp {{ upstream_addr "carrier" }}: connection refused`},
		{"redis at 127.0.0.1:41235 is down", `redis at {{ upstream "cache" }} is down`},
		// The built-in's real address is the run's; a written one is not.
		{"carrier http://127.0.0.1:38001 and 127.0.0.1:38001", `carrier {{ target "carrier" }} and {{ target_addr "carrier" }}`},
		{"bank http://127.0.0.1:9000, cache 127.0.0.1:6379", "bank http://127.0.0.1:9000, cache 127.0.0.1:6379"},
		// A port that runs on is another address.
		{"127.0.0.1:41234 127.0.0.1:412345 127.0.0.1:4123 127.0.0.1:41230", `{{ upstream_addr "carrier" }} 127.0.0.1:412345 {{ upstream_addr "bank" }} 127.0.0.1:41230`},
		{"http://127.0.0.1:4123/x", `{{ upstream "bank" }}/x`},
		{"exec /tmp/go-build123/b001/mcpchaos.test: killed", "exec {{ mcpchaos }}: killed"},

		{"", ""},
		{"nothing to see", "nothing to see"},
	} {
		if got := r.replace(tc.in); got != tc.want {
			t.Errorf("%q\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestRedactRunEveryText puts a proxy address in every kind of text a run
// quotes and checks that none is left, and that the scenario's own
// arguments, shared by every run, are not written through.
func TestRedactRunEveryText(t *testing.T) {
	sc, ups := redactScenario(t)
	const addr, url = "127.0.0.1:41234", "http://127.0.0.1:41234"
	shared := map[string]any{"callback": url + "/hook", "nested": []any{map[string]any{"at": addr}}, "n": 3}
	rec := transcript.Call{N: 1, Tool: "x", Args: shared, Text: "Post " + url + ": EOF",
		Observation: transcript.Observation{Seen: true, Text: "failed: " + url},
		Structured:  json.RawMessage(`{"at":"` + addr + `"}`),
		Signals: &transcript.ReplySignals{Signals: reader.Signals{Read: true, Upstream: reader.Flag{Set: true, Evidence: reader.Evidence{Source: reader.Source{Kind: reader.FromSentence, Quote: addr + ": EOF"}}},
			Unsafe: reader.Flag{Set: true, Evidence: reader.Evidence{Source: reader.Source{Quote: url}}},
			Args:   []reader.Arg{{Name: "endpoint", Value: url}}, Leaks: []reader.Leak{{Kind: "host_port", Text: addr}}}},
		Decision: transcript.Decision{Action: transcript.ActRetry, Tool: "x", Args: shared, Reason: "retry", Phrase: "at " + addr}}
	rep := RunReport{Scenario: "s", Calls: []transcript.Call{rec}, StopReason: "stopped at " + addr,
		Findings:    []judge.Finding{{ID: "MC007", Evidence: "leaks " + addr, Hint: "hide " + url}},
		SideEffects: []transcript.SideEffectCount{{Name: "e", Error: "probe " + url + ": 500"}},
		Error:       "server " + url, Server: &transcript.ProcessExit{Exited: true, StderrTail: "panic: dial " + addr}}
	server := rep.Server
	Redact(&rep, sc.Placeholders(ups, ""))
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "41234") {
		t.Errorf("an address is left:\n%s", data)
	}
	for _, want := range []string{`{{ upstream \"carrier\" }}/hook`, `{{ upstream_addr \"carrier\" }}`, `"n":3`, `"kind":"host_port"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("no %s in\n%s", want, data)
		}
	}
	if shared["callback"] != url+"/hook" || shared["nested"].([]any)[0].(map[string]any)["at"] != addr {
		t.Errorf("the scenario's arguments were written through: %v", shared)
	}
	if server.StderrTail != "panic: dial "+addr {
		t.Errorf("the process record was written through: %q", server.StderrTail)
	}
}

func TestRedactNothingCreated(t *testing.T) {
	rep := RunReport{Error: "server 127.0.0.1:1"}
	Redact(&rep, (&scenario.Scenario{}).Placeholders(nil, ""))
	if rep.Error != "server 127.0.0.1:1" {
		t.Errorf("%q", rep.Error)
	}
}

// TestRedactClientPorts: the server's own end of a connection to a proxy
// is a port its kernel picked, different on every run. It is replaced
// wherever it appears in the run (a leak candidate quotes it alone), and
// only when the report shows it next to an address the run created.
func TestRedactClientPorts(t *testing.T) {
	sc, ups := redactScenario(t)
	rep := RunReport{Calls: []transcript.Call{
		{N: 1, Text: "read tcp 127.0.0.1:57698->127.0.0.1:41234: read: connection reset by peer",
			Observation: transcript.Observation{Text: "127.0.0.1:57698"}},
		{N: 2, Text: "read tcp [::1]:57699->127.0.0.1:41234: EOF"},
		{N: 3, Text: "read tcp 127.0.0.1:57700->127.0.0.1:9000: EOF", Observation: transcript.Observation{Text: "127.0.0.1:57700"}},
	}}
	Redact(&rep, sc.Placeholders(ups, ""))
	for i, want := range []struct{ text, seen string }{
		{`read tcp 127.0.0.1:{{ client_port }}->{{ upstream_addr "carrier" }}: read: connection reset by peer`, "127.0.0.1:{{ client_port }}"},
		{`read tcp [::1]:{{ client_port }}->{{ upstream_addr "carrier" }}: EOF`, ""},
		{"read tcp 127.0.0.1:57700->127.0.0.1:9000: EOF", "127.0.0.1:57700"},
	} {
		if c := rep.Calls[i]; c.Text != want.text || c.Observation.Text != want.seen {
			t.Errorf("call %d: %q / %q\nwant %q / %q", c.N, c.Text, c.Observation.Text, want.text, want.seen)
		}
	}
}
