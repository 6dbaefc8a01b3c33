package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/api"
)

// TestAuditLiveSessions: real hosts (go-sdk clients) through a real mcp
// upstream. A session whose write's reply is lost three times ends in a
// duplicate, one that repeats a failing read ends in a loop: each writes
// an audit entry naming the front, session, verdict, tool and counts (the
// duplicates counted from the carrier's ledger); a session that converged
// writes none. GET /v1/audit serves them; GET /v1/live/sessions?limit=
// gives the latest sessions.
func TestAuditLiveSessions(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{})
	rig := startLiveRig(t, f.reg, f.client)
	before, err := f.client.Audit(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}

	ok := rig.session(t, "calm-host", mcp.CallToolParams{Name: "track_shipment", Arguments: map[string]any{"id": "S-1"}})
	dup := rig.session(t, "eager-host", shipment, shipment, shipment)
	quote := mcp.CallToolParams{Name: "quote", Arguments: map[string]any{"to": "Lyon"}}
	loop := rig.session(t, "stubborn-host", quote, quote, quote)
	if ok.Verdict != "converged" || dup.Verdict != "duplicate" || loop.Verdict != "loop" {
		t.Fatalf("session verdicts %q, %q, %q; want converged, duplicate, loop", ok.Verdict, dup.Verdict, loop.Verdict)
	}
	if n := rig.carrierPosts(); n != 3 {
		t.Fatalf("the carrier received %d writes, want 3", n)
	}
	// The latest two sessions, in the order they started.
	var list api.LiveSessionList
	status, body := f.call(t, "GET", "/v1/live/sessions?limit=2", "", "")
	if err := json.Unmarshal([]byte(body), &list); err != nil || status != 200 {
		t.Fatalf("GET /v1/live/sessions?limit=2: %d %s", status, body)
	}
	if len(list.Sessions) != 2 || list.Sessions[0].ID != dup.Session || list.Sessions[1].ID != loop.Session || list.Stats.Sessions != 3 {
		t.Errorf("limit=2 gave %s, want the sessions %s and %s of 3", body, dup.Session, loop.Session)
	}
	if status, body := f.call(t, "GET", "/v1/live/sessions?limit=-1", "", ""); status != 400 || !strings.Contains(body, `"field": "limit"`) {
		t.Errorf("limit=-1: %d %s, want 400 naming limit", status, body)
	}

	// The audit entry is written by the server's bus consumer, after the
	// event was published: ask until it is there.
	var entries []api.AuditEntry
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); <-tick.C {
		all, err := f.client.Audit(t.Context(), 0)
		if err != nil {
			t.Fatal(err)
		}
		entries = entries[:0]
		for _, e := range all[len(before):] {
			if e.Action == api.ActionLiveSession {
				entries = append(entries, e)
			}
		}
		if len(entries) >= 2 {
			break
		}
	}
	if len(entries) != 2 {
		t.Fatalf("%d live audit entries, want 2 (the duplicate and the loop): %+v", len(entries), entries)
	}
	want := []api.LiveAudit{
		{Front: "live", Session: dup.Session, Client: "eager-host 1.0", Verdict: "duplicate", Tool: "create_shipment",
			Calls: 3, LoopCalls: 3, Duplicates: 2},
		{Front: "live", Session: loop.Session, Client: "stubborn-host 1.0", Verdict: "loop", Tool: "quote",
			Calls: 3, LoopCalls: 3, Duplicates: 0},
	}
	for i, e := range entries {
		w := want[i]
		if e.Who != api.WhoLive || e.Target != w.Session || e.Actor != w.Client || e.Status != 0 || e.Live == nil {
			t.Errorf("entry %d: %+v, want who live, target %s, actor %q", i, e, w.Session, w.Client)
			continue
		}
		got := *e.Live
		if got.Evidence == "" {
			t.Errorf("entry %d has no evidence", i)
		}
		got.Evidence = ""
		if got != w {
			t.Errorf("entry %d: %+v, want %+v", i, got, w)
		}
		if wantDetail := "front=live verdict=" + w.Verdict + " tool=" + w.Tool; !strings.HasPrefix(e.Detail, wantDetail) {
			t.Errorf("entry %d detail %q, want it to start %q", i, e.Detail, wantDetail)
		}
	}
}
