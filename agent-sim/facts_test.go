package agentsim

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestFactsUnansweredWriteNotCounted (failure: the documented matcher
// counted requests the upstream never answered). Under an http_error 500
// before the upstream, a server that retries made two POSTs the upstream
// never saw: the matcher counts none, and MC003 is not raised.
func TestFactsUnansweredWriteNotCounted(t *testing.T) {
	bins := buildCorpus(t)
	r := runCorpusCell(t, bins["duplicating"], "before500", []string{"raw"})[0]
	if len(r.Calls) < 2 {
		t.Fatalf("want a retry, got %d calls%s", len(r.Calls), transcriptOf(r))
	}
	for _, c := range r.Calls {
		if c.Exchanges == 0 || c.Committed != 0 {
			t.Errorf("call %d: %d exchanges, %d committed; want some, none", c.N, c.Exchanges, c.Committed)
		}
	}
	if s := r.SideEffects[0]; s.Committed != 0 {
		t.Errorf("side effect %+v, want 0 committed", s)
	}
	if _, ok := findingEvidence(r)["MC003"]; ok {
		t.Errorf("MC003 raised for writes that never reached the upstream")
	}
}

// TestFactsStatusRemoved: the old idiom fails to load, saying what to
// write instead; a matcher that can count an unanswered request loads
// with a warning; the documented idiom loads clean.
func TestFactsStatusRemoved(t *testing.T) {
	head := "server: {command: [x]}\nsteps: [{tool: a}]\nside_effects:\n  - name: w\n    match: "
	for _, tc := range []struct {
		match, err, warn string
	}{
		{`method == "POST" && path == "/x" && status < 300`, "`status` was removed", ""},
		{`method == "POST" && path == "/x"`, "", "counts a request the upstream never answered (POST /x"},
		{`path == "/x" && client_status < 300`, "", "upstream_status 0, client_status 0"},
		{`method == "POST" && path == "/x" && upstream_status >= 200 && upstream_status < 300`, "", ""},
		{`method == "POST" && committed`, "", ""},
	} {
		sc, err := scenario.Parse("s.yaml", []byte(head+"'"+tc.match+"'\n"))
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "upstream_status >= 200") {
				t.Errorf("%s: error %v, want %q and the fix", tc.match, err, tc.err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", tc.match, err)
			continue
		}
		w := strings.Join(sc.Warnings(), "\n")
		if tc.warn == "" && w != "" || tc.warn != "" && !strings.Contains(w, tc.warn) {
			t.Errorf("%s: warnings %q, want %q", tc.match, w, tc.warn)
		}
		if tc.warn != "" && !strings.HasPrefix(w, "s.yaml:5: ") {
			t.Errorf("%s: warning %q is not located", tc.match, w)
		}
	}
}

// TestFactsIdenticalWritesOneEffect (failure: requests counted as
// effects). A server that applies its write with a PUT of the same
// object is retried after lost replies; the upstream holds one order, and
// neither MC003 nor MC009 is raised; the count says what it folded.
func TestFactsIdenticalWritesOneEffect(t *testing.T) {
	bins := buildCorpus(t)
	r := runCorpusCell(t, bins["upserting"], "putlost", []string{"raw"})[0]
	s := r.SideEffects[0]
	if s.Committed != 1 || s.Folded < 1 {
		t.Errorf("side effect %+v, want 1 committed and the repeats folded%s", s, transcriptOf(r))
	}
	got := findingEvidence(r)
	for _, id := range []string{"MC003", "MC009"} {
		if ev, ok := got[id]; ok {
			t.Errorf("%s raised: %s", id, ev)
		}
	}
}

// TestFoldCount: identical PUT, PATCH and DELETE requests fold unless
// the side effect counts requests; a POST, or a different body, does not.
func TestFoldCount(t *testing.T) {
	ev := func(method, path, body string) inject.Event {
		return inject.Event{Type: inject.EventExchange, Upstream: "u", Method: method, Path: path, BodyHash: body, Status: 200, Committed: true}
	}
	evs := []inject.Event{ev("PUT", "/a", "1"), ev("PUT", "/a", "1"), ev("PUT", "/a", "2"), ev("PUT", "/b", "1"),
		ev("POST", "/a", ""), ev("POST", "/a", ""), ev("DELETE", "/a", ""), ev("DELETE", "/a", "")}
	for _, tc := range []struct {
		count     string
		n, folded int
	}{{scenario.CountEffects, 6, 2}, {scenario.CountRequests, 8, 0}} {
		sc, err := scenario.Parse("s.yaml", []byte("server: {command: [x]}\nsteps: [{tool: a}]\nside_effects:\n  - name: w\n    count: "+
			tc.count+"\n    match: 'upstream_status >= 200 && upstream_status < 300'\n"))
		if err != nil {
			t.Fatal(err)
		}
		if n, folded := scenario.CountMatches(&sc.SideEffects[0], evs); n != tc.n || folded != tc.folded {
			t.Errorf("count %s: %d effects, %d folded; want %d, %d", tc.count, n, folded, tc.n, tc.folded)
		}
	}
}

// TestFactsDownUpstreamBelongsToCalls (failure: an always-down upstream
// was tied to no call). The refusal starts with the run's rules, before
// any call; every call is recorded with it (its dials refused by the
// kernel, not counted), and MC001 and MC008 are raised.
func TestFactsDownUpstreamBelongsToCalls(t *testing.T) {
	bins := buildCorpus(t)
	for server, id := range map[string]string{"rpcerror-gosdk": "MC001", "silentloss": "MC008"} {
		t.Run(server, func(t *testing.T) {
			t.Parallel()
			r := runCorpusCell(t, bins[server], "down", []string{"raw"})[0]
			for _, c := range r.Calls {
				if len(c.Faults) != 1 || c.Faults[0].Outcome != inject.OutcomeNotSent || !c.Faults[0].ServerKnows || c.Faults[0].Hits != 0 {
					t.Errorf("call %d faults %+v; want the refusal, not_sent, known, not counted", c.N, c.Faults)
				}
			}
			if ev, ok := findingEvidence(r)[id]; !ok || !strings.Contains(ev, "outcome not_sent") {
				t.Errorf("%s: %q; want it, resting on the outcome%s", id, ev, transcriptOf(r))
			}
		})
	}
}

// TestFactsOutcomeNotKind (failure: faults judged by kind name). A
// server that calls every failure definite is right when the dial was
// refused, and wrong under a black-holed dial (outcome unknown) or an
// error after the upstream committed: MC004 follows the declared outcome.
func TestFactsOutcomeNotKind(t *testing.T) {
	bins := buildCorpus(t)
	for scenario, want := range map[string]string{"blackhole": "outcome unknown", "late500": "outcome committed_reply_lost", "down": ""} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			r := runCorpusCell(t, bins["definite"], scenario, []string{"raw"})[0]
			ev, ok := findingEvidence(r)["MC004"]
			if want == "" && ok || want != "" && !strings.Contains(ev, want) {
				t.Errorf("MC004 %q; want %q%s", ev, want, transcriptOf(r))
			}
		})
	}
}
