package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/api"
)

// TestGamedayReport: a host calls a failing tool three times through an
// mcp upstream of a real serve; `mcpchaos gameday report` (--server,
// --token) writes the session as a run with the retry loop MC002, as JSON
// to stdout and as Markdown to --out; a bad --since is refused naming
// since, exit 2.
func TestGamedayReport(t *testing.T) {
	const token = "a-token-long-enough-for-the-gameday-test"
	t.Setenv("MCPCHAOS_TOKEN", token)
	s := startServe(t, "--api", "127.0.0.1:0")
	t.Setenv("MCPCHAOS_TOKEN", "") // the report's token comes from --token
	t.Setenv("MCPCHAOS_API", "")
	srv := mcp.NewServer(&mcp.Implementation{Name: "gameday-server", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "create_order", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}, IsError: true}, nil
		})
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(up.Close)
	cl, err := api.NewClient(s.api, api.ClientOptions{Token: token, HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := cl.AddUpstream(t.Context(), api.UpstreamRequest{Name: "live", Protocol: "mcp", Target: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	host := mcp.NewClient(&mcp.Implementation{Name: "staging-agent", Version: "0.3"}, nil)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cs, err := host.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + u.Listen + "/mcp",
		HTTPClient: &http.Client{Transport: tr}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_order", Arguments: map[string]any{"id": "A-7"}}); err != nil {
			t.Fatal(err)
		}
	}
	_ = cs.Close()

	// The session is graded once it closes: poll until the report says so.
	flags := []string{"gameday", "report", "--server", s.api, "--token", token, "--since", "1h"}
	var rep struct {
		Runs []struct {
			Scenario, Persona, Host string
			Calls                   []json.RawMessage
			Findings                []struct{ ID string }
		}
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var out, errOut string
	var code int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); <-tick.C {
		code, out, errOut = cli(t, append(flags, "--format", "json")...)
		if code != 0 {
			t.Fatalf("gameday report: exit %d: %s", code, errOut)
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("report is not JSON: %v\n%s", err, out)
		}
		if len(rep.Runs) == 1 && len(rep.Runs[0].Calls) == 3 && hasFinding(rep.Runs[0].Findings, "MC002") {
			break
		}
	}
	if len(rep.Runs) != 1 || !strings.HasPrefix(rep.Runs[0].Scenario, "live live/") || rep.Runs[0].Persona != "live" ||
		rep.Runs[0].Host != "staging-agent" || !hasFinding(rep.Runs[0].Findings, "MC002") {
		t.Fatalf("report %s", out)
	}

	file := filepath.Join(t.TempDir(), "gameday.md")
	if code, _, errOut = cli(t, append(flags, "--format", "markdown", "--out", file)...); code != 0 {
		t.Fatalf("--out: exit %d: %s", code, errOut)
	}
	md, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(md), rep.Runs[0].Scenario) || !strings.Contains(string(md), "MC002") {
		t.Errorf("markdown report (%v):\n%s", err, md)
	}
	if code, _, errOut = cli(t, "gameday", "report", "--server", s.api, "--token", token, "--since", "soon"); code != 2 || !strings.Contains(errOut, "field since") {
		t.Errorf("bad --since: exit %d: %s", code, errOut)
	}
}

func hasFinding(fs []struct{ ID string }, id string) bool {
	for _, f := range fs {
		if f.ID == id {
			return true
		}
	}
	return false
}

// TestGamedayReportDuplicates: a session that duplicated writes (the
// demo's careless server behind wrap, its carrier committing each
// shipment POST and losing the reply, the host calling the write three
// times) is reported by `mcpchaos gameday report` with MC003 and its
// duplicate count (one shipment intended, three committed) in text, JSON
// and Markdown.
func TestGamedayReportDuplicates(t *testing.T) {
	g := startGameday(t)
	wrap := exec.Command(os.Args[0], "wrap", "--report", g.api, "--hold", "10s", "--session", "dup",
		"--", os.Args[0], "demo-server", "--variant", "careless")
	wrap.Env = append(os.Environ(), asMainEnv+"=1", "MCPCHAOS_TOKEN="+gamedayToken, "CARRIER_URL="+g.carrier)
	var wrapErr bytes.Buffer
	wrap.Stderr = &wrapErr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "gameday-host", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: wrap}, nil)
	if err != nil {
		t.Fatalf("connect through wrap: %v; %s", err, wrapErr.String())
	}
	const calls = 3
	replay(t.Context(), cs, slices.Repeat([]simCall{{Tool: "create_shipment", Args: map[string]any{"order_id": "A-1001", "address": "1 Main St"}}}, calls))
	_ = cs.Close()
	sess, _ := g.closedSession(t, "dup", &wrapErr)

	report := func(format string) string {
		t.Helper()
		code, out, errOut := cli(t, "gameday", "report", "--server", g.api, "--token", gamedayToken, "--format", format)
		if code != 0 {
			t.Fatalf("gameday report --format %s: exit %d: %s", format, code, errOut)
		}
		return out
	}
	var rep struct {
		Runs []struct {
			Scenario         string
			SideEffectsTotal struct{ Intended, Committed int } `json:"side_effects_total"`
			Findings         []struct{ ID, Evidence string }
		}
	}
	out := report("json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Runs) != 1 {
		t.Fatalf("report (%v): %s", err, out)
	}
	run := rep.Runs[0]
	var mc003 string
	for _, f := range run.Findings {
		if f.ID == "MC003" {
			mc003 = f.Evidence
		}
	}
	if tot := run.SideEffectsTotal; tot.Intended != 1 || tot.Committed != calls || mc003 == "" || !strings.Contains(run.Scenario, sess.ID) {
		t.Fatalf("json: side effects %+v, MC003 %q, scenario %q:\n%s", tot, mc003, run.Scenario, out)
	}
	if !strings.Contains(mc003, "intended 1, committed 3") {
		t.Errorf("MC003 says %q", mc003)
	}

	text := report("text")
	row := regexp.MustCompile(`(?m)^\s*live\s+gameday-host\s.*\s1\s+3\s.*MC003`)
	if !row.MatchString(text) || !strings.Contains(text, run.Scenario) || !strings.Contains(text, "intended 1, committed 3") {
		t.Errorf("text: no row with 1 intended, 3 committed and MC003 under %s:\n%s", run.Scenario, text)
	}
	md := report("markdown")
	if !strings.Contains(md, "| 1 / 3 |") || !strings.Contains(md, "MC003") || !strings.Contains(md, "intended 1, committed 3") {
		t.Errorf("markdown: no 1 / 3 side effects or MC003:\n%s", md)
	}
}
