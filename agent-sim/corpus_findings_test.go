package agentsim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/rules"
)

// corpusMatrixScenario is the headline scenario (a lost create_order
// reply) for one corpus server under every built-in host profile.
func corpusMatrixScenario(t *testing.T, bin, upstream string, fault *rules.FaultSpec) *scenario.Scenario {
	t.Helper()
	sc := headlineScenario(t, bin, upstream)
	if fault != nil {
		sc.Rules[0].Fault = *fault
	}
	sc.Agent.Hosts = []string{"swallow", "generic", "raw"}
	sc.Agent.CallTimeout = corpusCallTimeout
	// Short: no corpus server here answers late, and the hanging server
	// waits out the grace on every call.
	sc.Agent.LateGrace = corpusLateGrace
	sc.Agent.Budget = 3 // enough to tell a loop from a stop
	return sc
}

// corpusCallTimeout keeps the hanging server's runs short; corpusLateGrace
// is how long its calls wait for a late reply.
const (
	corpusCallTimeout = 1500 * time.Millisecond
	corpusLateGrace   = 300 * time.Millisecond
)

// TestCorpusFindings pins, for every server of the corpus and every host
// profile, the channels its replies came back in and the findings the
// judge made of them, under a lost create_order reply.
func TestCorpusFindings(t *testing.T) {
	bins := buildCorpus(t)
	type want struct {
		channels string // distinct channels of the run's calls, in order
		findings string // finding IDs, sorted
	}
	all := func(w want) map[string]want { return map[string]want{"swallow": w, "generic": w, "raw": w} }
	// A write cut short never commits: the case a server that always says
	// "placed" gets wrong.
	cut := &rules.FaultSpec{Kind: "partial_write", Params: map[string]any{"direction": "request", "bytes": 5}}
	faults := map[string]*rules.FaultSpec{"silentloss": cut}
	tests := map[string]map[string]want{
		"careful-gosdk":  all(want{"tool_error success", ""}),
		"careful-mcpgo":  all(want{"tool_error success", ""}),
		"rpcerror-gosdk": all(want{"protocol_error", "MC001 MC002 MC003"}),
		"rpcerror-mcpgo": all(want{"protocol_error", "MC001 MC002 MC003"}),
		// A Go error-wrapping prefix ("create_order: …") is not an
		// instruction: no next action (MC006), and the vague error is
		// retried once, which duplicates the order (MC003).
		"typederror-gosdk": all(want{"tool_error", "MC003 MC004 MC005 MC006"}),
		"leaky":            all(want{"tool_error success", "MC007"}),
		"noguidance":       all(want{"tool_error", "MC003 MC004 MC005 MC006"}),
		"duplicating":      all(want{"tool_error", "MC003 MC004 MC005 MC006 MC009"}),
		"silentloss":       all(want{"success", "MC008"}),
		// The server dies on the first failure, after the upstream
		// committed the order. The host restarts it once (after_crash's
		// default); the agent, told nothing, repeats the order, which
		// commits again and kills the new process too; the host stops.
		// The crash is the finding (MC012), not a retry loop, and the
		// upstream really holds two orders (MC003).
		"panicky": all(want{"server_exit", "MC003 MC012"}),
		"hanging": all(want{"no_response", "MC002"}),
		// A reset is not a hold: without a deadline of its own the
		// server still hears of it at once, and answers as careful does.
		"nodeadline": all(want{"tool_error success", ""}),
		// Dies on every first call, before any upstream traffic: the
		// restarted process dies too, and the host stops.
		"crashonce": all(want{"server_exit", "MC012"}),
	}
	for server, hosts := range tests {
		t.Run(server, func(t *testing.T) {
			t.Parallel()
			url, _ := corpusUpstreamURL(t)
			// One cell at a time: the cells share the upstream, and its
			// probe counts the difference it sees before and after a run.
			sc := corpusMatrixScenario(t, bins[server], url, faults[server])
			rep, err := Run(context.Background(), []*scenario.Scenario{sc}, RunOptions{Seed: 1, Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Runs {
				var chans []string
				for _, c := range r.Calls {
					if !slices.Contains(chans, string(c.Channel)) {
						chans = append(chans, string(c.Channel))
					}
				}
				var ids []string
				for _, f := range r.Findings {
					if !slices.Contains(ids, f.ID) {
						ids = append(ids, f.ID)
					}
				}
				slices.Sort(ids)
				got := want{strings.Join(chans, " "), strings.Join(ids, " ")}
				if w := hosts[r.Host]; got != w {
					t.Errorf("%s under %s: channels %q findings %q; want %q %q%s", server, r.Host, got.channels, got.findings, w.channels, w.findings, transcriptOf(r))
				}
			}
		})
	}
}

func transcriptOf(r report.RunReport) string {
	var b strings.Builder
	for _, c := range r.Calls {
		fmt.Fprintf(&b, "\n  call %d %s: %s %q -> %s", c.N, c.Tool, c.Channel, c.Text, c.Decision.Reason)
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "\n  error: %s", r.Error)
	}
	return b.String()
}
