package agentsim

import (
	"context"
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// processScenario runs bin against the order service at upstream through
// a proxy named "orders", for create_order, under one host profile of its
// own. env, agent and rules are YAML fragments added to the scenario.
func processScenario(t *testing.T, bin, upstream, env, agent, rules string) *scenario.Scenario {
	t.Helper()
	src := fmt.Sprintf(`name: process facts
server:
  command: [%q]
  env: {UPSTREAM_URL: '{{ upstream "orders" }}'%s}
upstreams:
  - {name: orders, protocol: http, target: %q}
rules:
%s
agent:
  personas: [diligent]
  hosts: [h]
%s
steps:
  - tool: create_order
    args: {sku: A-1, qty: 1}
followups:
  list_orders: {sku: A-1}
`, bin, env, upstream, rules, agent)
	sc, err := scenario.Parse("process.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// noRules is a rule that never matches: the upstream stays healthy.
const noRules = `  - {name: never, upstream: orders, when: 'path == "/never"', fault: {kind: timeout}}`

func runOne(t *testing.T, sc *scenario.Scenario) report.RunReport {
	t.Helper()
	rep, err := Run(context.Background(), []*scenario.Scenario{sc}, RunOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Runs[0]
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	for _, f := range r.Findings {
		t.Logf("%s call %d: %s", f.ID, f.Call, f.Evidence)
	}
	return r
}

func findingByID(r report.RunReport, id string) (judge.Finding, bool) {
	for _, f := range r.Findings {
		if f.ID == id {
			return f, true
		}
	}
	return judge.Finding{}, false
}

func channels(r report.RunReport) string {
	var out []string
	for _, c := range r.Calls {
		out = append(out, string(c.Channel))
	}
	return strings.Join(out, " ")
}

// TestRunServerCrash: a server that panics on its first call is reported
// as crashed (MC012, with the panic from its stderr), not as a retry loop,
// and the host does what its profile says instead of calling a dead
// process to the end of the budget.
func TestRunServerCrash(t *testing.T) {
	bins := buildCorpus(t)
	url, _ := corpusUpstreamURL(t)
	tests := []struct {
		name       string
		env        string // extra server env
		afterCrash string // "" = the default
		channels   string
		hosts      []string // Crash.Host of each crashed call
		converged  bool
	}{
		{"default reconnects once, then stops", "", "", "server_exit server_exit", []string{transcript.HostReconnected, transcript.HostStopped}, false},
		{"stop", "", "stop", "server_exit", []string{transcript.HostStopped}, false},
		{"reconnect_once, restarted server works", "marker", "reconnect_once", "server_exit success", []string{transcript.HostReconnected}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := ""
			if tc.env == "marker" {
				env = fmt.Sprintf(", CRASH_ONCE_FILE: %q", filepath.Join(t.TempDir(), "crashed"))
			}
			profile := "  host_profiles:\n    - {name: h, no_response: nothing}"
			if tc.afterCrash != "" {
				profile = fmt.Sprintf("  host_profiles:\n    - {name: h, no_response: nothing, after_crash: %s}", tc.afterCrash)
			}
			r := runOne(t, processScenario(t, bins["crashonce"], url, env, profile+"\n  budget: 6", noRules))
			if got := channels(r); got != tc.channels {
				t.Fatalf("channels %q, want %q%s", got, tc.channels, transcriptOf(r))
			}
			var hosts []string
			for _, c := range r.Calls {
				if c.Crash != nil {
					hosts = append(hosts, c.Crash.Host)
					if !strings.Contains(c.Crash.StderrTail, "panic: crashonce: order book not loaded") {
						t.Errorf("call %d: stderr tail lacks the panic: %q", c.N, c.Crash.StderrTail)
					}
				}
			}
			if !slices.Equal(hosts, tc.hosts) {
				t.Errorf("host actions %q, want %q", hosts, tc.hosts)
			}
			if r.Converged != tc.converged {
				t.Errorf("converged %t, want %t (stop reason %q)", r.Converged, tc.converged, r.StopReason)
			}
			f, ok := findingByID(r, "MC012")
			if !ok || f.Call != 1 || !strings.Contains(f.Evidence, "panic: crashonce: order book not loaded") ||
				!strings.Contains(f.Evidence, "exit code 2") {
				t.Errorf("MC012 = %+v (found %t), want call 1 with the exit and the panic", f, ok)
			}
			if f, ok := findingByID(r, "MC002"); ok {
				t.Errorf("a crash reported as a retry loop: %+v", f)
			}
		})
	}
}

// TestRunNoUpstreamDeadline: a server with no deadline of its own behind
// an upstream the fault layer holds is reported as MC013, naming the
// upstream, and not as a retry loop; a server whose deadline is shorter
// than call_timeout is not.
func TestRunNoUpstreamDeadline(t *testing.T) {
	bins := buildCorpus(t)
	url, _ := corpusUpstreamURL(t)
	hold := `  - {name: hold the create, upstream: orders, when: 'method == "POST"', fault: {kind: timeout}}`
	profile := "  host_profiles:\n    - {name: h, no_response: nothing}\n  budget: 2\n"
	t.Run("nodeadline", func(t *testing.T) {
		t.Parallel()
		r := runOne(t, processScenario(t, bins["nodeadline"], url, "", profile+"  call_timeout: 300ms\n  late_grace: 300ms", hold))
		if got := channels(r); got != "no_response no_response" {
			t.Fatalf("channels %q%s", got, transcriptOf(r))
		}
		for _, c := range r.Calls {
			h, ok := transcript.HeldPastDeadline(c)
			// How long the hold lasted before the call ended depends on
			// when the server got round to dialling (a loaded machine
			// eats into it); the fact checked is that it outlived the
			// call's deadline.
			if !ok || h.Upstream != "orders" || h.Rule != "hold the create" || h.HeldMS <= 0 {
				t.Errorf("call %d holds %+v, want orders held past the deadline", c.N, c.Holds)
			}
		}
		f, ok := findingByID(r, "MC013")
		if !ok || !strings.Contains(f.Evidence, `upstream "orders" held for`) || !strings.Contains(f.Hint, `calls to "orders"`) {
			t.Errorf("MC013 = %+v (found %t)", f, ok)
		}
		if f, ok := findingByID(r, "MC002"); ok {
			t.Errorf("a missing upstream deadline reported as a retry loop: %+v", f)
		}
	})
	t.Run("careful deadline", func(t *testing.T) {
		t.Parallel()
		// careful-gosdk gives up on the upstream after 1.5 s and says so.
		r := runOne(t, processScenario(t, bins["careful-gosdk"], url, "", profile+"  call_timeout: 10s", hold))
		if r.Calls[0].Channel != transcript.ChannelToolError {
			t.Fatalf("first call %s%s", r.Calls[0].Channel, transcriptOf(r))
		}
		if f, ok := findingByID(r, "MC013"); ok {
			t.Errorf("MC013 for a server that answered in time: %+v", f)
		}
	})
}

// TestRunLateReply: a server that answers after call_timeout has its
// reply recorded with the call (the model still saw no_response) and is
// reported as MC014, not as a retry loop. Without a late grace the reply
// is not waited for, and the old verdict (MC002) stands.
func TestRunLateReply(t *testing.T) {
	bins := buildCorpus(t)
	url, _ := corpusUpstreamURL(t)
	base := "  host_profiles:\n    - {name: h, no_response: nothing}\n  budget: 2\n  call_timeout: 200ms\n"
	env := `, SLOW_DELAY: 400ms`
	t.Run("within the grace", func(t *testing.T) {
		t.Parallel()
		// A grace far above the delay: the wait ends when the reply comes,
		// so it costs nothing, and a loaded machine cannot miss the reply.
		r := runOne(t, processScenario(t, bins["slow"], url, env, base+"  late_grace: 10s", noRules))
		if got := channels(r); got != "no_response no_response" {
			t.Fatalf("channels %q%s", got, transcriptOf(r))
		}
		c := r.Calls[0]
		if c.Late == nil || c.Late.Channel != transcript.ChannelSuccess || !strings.Contains(c.Late.Text, "placed") || c.Late.ElapsedMS < 400 {
			t.Fatalf("late reply %+v, want a success after at least 400 ms", c.Late)
		}
		if c.Observation.Seen || c.Decision.Reason != persona.ReasonNoEvidence {
			t.Errorf("the model saw %+v and decided %q; the host had given up", c.Observation, c.Decision.Reason)
		}
		f, ok := findingByID(r, "MC014")
		if !ok || f.Severity != judge.SeverityWarning || !strings.Contains(f.Evidence, "the server answered after") ||
			!strings.Contains(f.Hint, "Raise call_timeout above") {
			t.Errorf("MC014 = %+v (found %t)", f, ok)
		}
		if f, ok := findingByID(r, "MC002"); ok {
			t.Errorf("late replies reported as a retry loop: %+v", f)
		}
	})
	t.Run("no grace", func(t *testing.T) {
		t.Parallel()
		r := runOne(t, processScenario(t, bins["slow"], url, env, base+"  late_grace: 0s", noRules))
		for _, c := range r.Calls {
			if c.Late != nil {
				t.Errorf("call %d has a late reply without a grace: %+v", c.N, c.Late)
			}
		}
		if _, ok := findingByID(r, "MC014"); ok {
			t.Error("MC014 without a late reply")
		}
		if _, ok := findingByID(r, "MC002"); !ok {
			t.Errorf("no MC002 for a loop of unexplained no_response calls: %+v", r.Findings)
		}
	})
}
