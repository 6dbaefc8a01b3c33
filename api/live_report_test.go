package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestLiveReport: a host calls a failing tool three times with the same
// arguments through a real mcp upstream; GET /v1/live/report writes the
// session as a run (scenario: front and session, persona live, host the
// client's name) with the retry loop MC002 and the judge's MC005, in
// every format; since= leaves out a session that ended before it, and a
// bad since or format is a 400 naming the parameter.
func TestLiveReport(t *testing.T) {
	f := setup(t, "httptest", nil, api.Options{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "report-test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "create_order", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}, IsError: true}, nil
		})
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(up.Close)
	status, body := f.call(t, "POST", "/v1/upstreams", "application/json",
		`{"name":"live","protocol":"mcp","target":"`+up.URL+`"}`)
	if status != http.StatusCreated {
		t.Fatalf("create mcp upstream: %d %s", status, body)
	}
	var u api.Upstream
	if err := json.Unmarshal([]byte(body), &u); err != nil {
		t.Fatal(err)
	}
	sub := f.reg.Bus().Subscribe(256)
	defer sub.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "gameday-host", Version: "2.1"}, nil)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + u.Listen + "/mcp",
		HTTPClient: &http.Client{Transport: tr}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_order", Arguments: map[string]any{"id": "A-1"}}); err != nil {
			t.Fatal(err)
		}
	}
	_ = cs.Close()
	var session string
	timeout := time.After(20 * time.Second)
	for session == "" {
		select {
		case e := <-sub.C():
			if e.Type == inject.EventSessionClose {
				session = e.Session
			}
		case <-timeout:
			t.Fatal("no session_close event")
		}
	}

	status, body = f.call(t, "GET", "/v1/live/report?since=1h&format=json", "", "")
	if status != http.StatusOK {
		t.Fatalf("json report: %d %s", status, body)
	}
	var rep struct {
		Runs []struct {
			Scenario, Persona, Host string
			Converged               bool
			Calls                   []json.RawMessage
			Findings                []struct{ ID string }
		}
		Summary struct {
			ByID map[string]int `json:"by_id"`
		}
	}
	if err := json.Unmarshal([]byte(body), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 {
		t.Fatalf("runs %s", body)
	}
	run := rep.Runs[0]
	if run.Scenario != "live "+session || run.Persona != "live" || run.Host != "gameday-host" || run.Converged || len(run.Calls) != 3 {
		t.Errorf("run %+v, want scenario %q, persona live, host gameday-host, not converged, 3 calls", run, "live "+session)
	}
	if rep.Summary.ByID["MC002"] != 1 || rep.Summary.ByID["MC005"] == 0 {
		t.Errorf("findings by id %v, want MC002 once and MC005", rep.Summary.ByID)
	}

	for format, want := range map[string][]string{
		"text":     {"mcpchaos report", "live " + session, "gameday-host", "MC002", "retry loop", "CONVERGED"},
		"markdown": {"live " + session, "MC002", "gameday-host", "|"},
		"html":     {"<html", "MC002", "gameday-host", session},
	} {
		status, body = f.call(t, "GET", "/v1/live/report?format="+format, "", "")
		if status != http.StatusOK {
			t.Errorf("%s: %d %s", format, status, body)
			continue
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s report lacks %q:\n%s", format, w, body)
			}
		}
	}

	// A since after the session ended leaves it out.
	after := time.Now().UTC().Format(time.RFC3339Nano)
	if status, body = f.call(t, "GET", "/v1/live/report?format=json&since="+after, "", ""); status != http.StatusOK || !strings.Contains(body, `"runs": []`) {
		t.Errorf("since after the session: %d %s", status, body)
	}
	for _, q := range []string{"since=yesterday", "since=-1h", "since=100000h", "format=pdf"} {
		status, body = f.call(t, "GET", "/v1/live/report?"+q, "", "")
		field := strings.SplitN(q, "=", 2)[0]
		if status != http.StatusBadRequest || !strings.Contains(body, `"field": "`+field+`"`) {
			t.Errorf("%s: %d %s, want 400 naming %s", q, status, body, field)
		}
	}
}
