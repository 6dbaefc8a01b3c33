package api_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/browsertest"
)

// TestDashboardLiveAgents drives the Live agents panel in headless
// Chromium with real live traffic: go-sdk clients through a real mcp
// upstream, one session that converges and one whose write's reply is
// lost three times (a retry loop that duplicated the write). The panel
// lists both from the event stream with their verdicts, the harmful one
// highlighted; the timeline shows the session_close with its verdict;
// expanding the session shows its calls (the duplicate and the loop
// highlighted) and, for a call, the reply the host got, as text, and the
// carrier exchange and injection attributed to it. A reload of the page
// shows the same from /v1/live/* and the events the server remembers.
func TestDashboardLiveAgents(t *testing.T) {
	exe := browsertest.Path(t)
	srv := startDashboardServer(t, "127.0.0.1:0")
	rig := startLiveRig(t, srv.reg, srv.client)
	b := newBrowser(t, exe, srv.host)
	b.do("opening the dashboard", 20*time.Second,
		chromedp.Navigate(srv.base+"/"),
		chromedp.WaitVisible(chromedp.ID("token-input")),
		chromedp.SendKeys(chromedp.ID("token-input"), testToken+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#upstreams article[data-key="live"]`)),
		chromedp.WaitVisible(chromedp.ID("live-empty")),
	)
	b.waitFor("the event stream", 10*time.Second, `document.getElementById("status").textContent === "Live"`)

	calm := rig.session(t, "calm-host", mcp.CallToolParams{Name: "track_shipment", Arguments: map[string]any{"id": "S-1"}})
	eager := rig.session(t, "eager-host", shipment, shipment, shipment)
	if calm.Verdict != "converged" || eager.Verdict != "duplicate" {
		t.Fatalf("session verdicts %q and %q, want converged and duplicate", calm.Verdict, eager.Verdict)
	}
	calmSel := fmt.Sprintf(`#live-sessions details[data-key=%q]`, calm.Session)
	eagerSel := fmt.Sprintf(`#live-sessions details[data-key=%q]`, eager.Session)

	checkSessions := func(when string) {
		t.Helper()
		b.waitFor("both sessions with their verdicts "+when, 20*time.Second, fmt.Sprintf(`(() => {
			const calm = document.querySelector(%q), eager = document.querySelector(%q);
			return calm && eager && calm.dataset.verdict === "converged" && !calm.classList.contains("harm") &&
				eager.dataset.verdict === "duplicate" && eager.classList.contains("harm") &&
				eager.querySelector("summary").textContent.includes("eager-host 1.0") &&
				eager.querySelector("summary").textContent.includes("3 calls") &&
				calm.querySelector("summary").textContent.includes("calm-host 1.0") &&
				document.getElementById("live-empty").hidden;
		})()`, calmSel, eagerSel))
	}
	checkSessions("from the event stream")
	// Newest first.
	if first := evaluate[string](b, `document.querySelector("#live-sessions details").dataset.key`); first != eager.Session {
		t.Errorf("first session shown %q, want the newest %q", first, eager.Session)
	}
	b.waitFor("the session_close on the timeline", 10*time.Second, fmt.Sprintf(
		`[...document.querySelectorAll('#timeline li[data-type="session_close"]')].some(li =>
			li.textContent.includes(%q) && li.dataset.verdict === "duplicate" && li.classList.contains("harm") &&
			li.textContent.includes("duplicated write"))`, eager.Session))

	expandAndCheck := func(when string) {
		t.Helper()
		b.do("expanding the session "+when, 10*time.Second, chromedp.Click(chromedp.CSS(eagerSel+" > summary")))
		b.waitFor("its calls "+when, 20*time.Second, fmt.Sprintf(`(() => {
			const rows = [...document.querySelectorAll(%q)];
			return rows.length === 3 && rows.map(r => r.dataset.verdict).join(",").endsWith("duplicate,loop") &&
				rows[1].classList.contains("harm") && rows[2].classList.contains("harm") && !rows[0].classList.contains("harm") &&
				rows.every(r => r.textContent.includes("create_shipment") && r.textContent.includes("tool_error"));
		})()`, eagerSel+" tr.live-call"))
		// The evidence of the second call: open its details.
		b.do("opening a call's evidence "+when, 10*time.Second,
			chromedp.Click(chromedp.CSS(eagerSel+` tr.live-evidence[data-key="evidence-2"] summary`)))
		box := eagerSel + ` tr.live-evidence[data-key="evidence-2"] .evidence`
		b.waitFor("the reply and the attributed traffic "+when, 20*time.Second, fmt.Sprintf(`(() => {
			const box = document.querySelector(%q);
			if (!box) return false;
			const t = box.textContent;
			return t.includes("POST /shipments") && t.includes("201") && t.includes("client got 503") &&
				t.includes("committed") && t.includes("lose-reply");
		})()`, box))
		reply := evaluate[string](b, fmt.Sprintf(`document.querySelector(%q).textContent`, box+" pre.reply"))
		if reply != lostReplyText {
			t.Errorf("reply shown %s = %q, want %q", when, reply, lostReplyText)
		}
		// The server's markup is text on the page, not elements.
		if n := evaluate[int](b, `document.querySelectorAll("#live-sessions b").length`); n != 0 {
			t.Errorf("%s: %d <b> elements in the panel: the reply text went in as markup", when, n)
		}
	}
	expandAndCheck("from the event stream")

	// A fresh page load: the sessions come from /v1/live/sessions, the
	// evidence from the events the server remembers.
	b.do("reloading the page", 20*time.Second, chromedp.Reload())
	checkSessions("after a reload")
	expandAndCheck("after a reload")

	b.screenshot(t, "dashboard-live.png")

	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.foreign) > 0 {
		t.Errorf("the page requested other hosts than the API server: %q", b.foreign)
	}
	if len(b.console) > 0 {
		t.Errorf("the page threw or broke its policy: %q", b.console)
	}
	asked := strings.Join(b.allowed, " ")
	for _, want := range []string{"/v1/live/sessions", "/v1/live/calls?session=", "/v1/events?follow=false&replay=4096&type=exchange,injection"} {
		if !strings.Contains(asked, want) {
			t.Errorf("the page never asked for %s: %q", want, b.allowed)
		}
	}
}
