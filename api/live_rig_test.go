package api_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

// lostReplyText is what create_shipment tells the host when the carrier's
// reply was lost. It holds markup, which a page must show as text.
const lostReplyText = `shipment not created: the carrier said <b>503</b> Service Unavailable`

// liveRig is real live traffic on a real API server: a go-sdk Streamable
// HTTP MCP server behind an mcp upstream ("live"), whose create_shipment
// tool POSTs to a carrier through an http upstream ("carrier") of the
// same registry, where a fault answers 503 after the carrier committed
// the write; track_shipment GETs from the carrier; quote always fails
// without touching any upstream. The fault layer attributes the carrier
// exchanges to the calls open in the front.
type liveRig struct {
	reg      *inject.Registry
	endpoint string // the front's MCP endpoint
	mu       sync.Mutex
	posts    int // writes the carrier received
}

func startLiveRig(t *testing.T, reg *inject.Registry, c *api.Client) *liveRig {
	t.Helper()
	ctx := t.Context()
	r := &liveRig{reg: reg}
	carrierBackend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.ReadAll(req.Body)
		if req.Method == http.MethodPost {
			r.mu.Lock()
			r.posts++
			r.mu.Unlock()
			w.WriteHeader(http.StatusCreated)
		}
		_, _ = io.WriteString(w, `{"status":"in transit"}`)
	}))
	t.Cleanup(carrierBackend.Close)
	carrier, err := c.AddUpstream(ctx, api.UpstreamRequest{Name: "carrier", Protocol: "http", Target: carrierBackend.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddFault(ctx, api.FaultRequest{Name: "lose-reply", Upstream: "carrier", When: `method == "POST"`,
		Fault: api.FaultSpec{Kind: "http_error", Params: map[string]any{"status": 503, "after_upstream": true}}}); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	toCarrier := func(ctx context.Context, method string) (int, error) {
		req, err := http.NewRequestWithContext(ctx, method, "http://"+carrier.Listen+"/shipments", strings.NewReader(`{"id":"S-1"}`))
		if err != nil {
			return 0, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	text := func(s string, isErr bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isErr}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "shipping", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	srv.AddTool(&mcp.Tool{Name: "create_shipment", Description: "Create a shipment.", InputSchema: obj},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			status, err := toCarrier(ctx, http.MethodPost)
			if err != nil || status >= 300 {
				return text(lostReplyText, true), nil
			}
			return text("shipment created", false), nil
		})
	srv.AddTool(&mcp.Tool{Name: "track_shipment", Description: "Where a shipment is.", InputSchema: obj},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			status, err := toCarrier(ctx, http.MethodGet)
			if err != nil || status != http.StatusOK {
				return text(fmt.Sprintf("tracking failed (%d %v)", status, err), true), nil
			}
			return text("shipment S-1 is in transit", false), nil
		})
	srv.AddTool(&mcp.Tool{Name: "quote", Description: "Quote a price.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("pong", true), nil
		})
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(up.Close)
	front, err := c.AddUpstream(ctx, api.UpstreamRequest{Name: "live", Protocol: "mcp", Target: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	r.endpoint = "http://" + front.Listen + "/mcp"
	return r
}

// session connects a go-sdk client named host through the front, makes
// the calls, closes the session (DELETE) and waits for its session_close
// event, which it returns.
func (r *liveRig) session(t *testing.T, host string, calls ...mcp.CallToolParams) inject.Event {
	t.Helper()
	sub := r.reg.Bus().Subscribe(1024)
	defer sub.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := mcp.NewClient(&mcp.Implementation{Name: host, Version: "1.0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: r.endpoint, HTTPClient: &http.Client{Transport: tr}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range calls {
		if _, err := cs.CallTool(t.Context(), &p); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
	}
	id := cs.ID()
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case e := <-sub.C():
			if e.Type == inject.EventSessionClose && strings.HasSuffix(e.Session, "/"+id) {
				return e
			}
		case <-timeout:
			t.Fatalf("no session_close event for session %s", id)
		}
	}
}

// carrierPosts returns how many writes the carrier received.
func (r *liveRig) carrierPosts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.posts
}

// shipment is create_shipment's call, the same each time.
var shipment = mcp.CallToolParams{Name: "create_shipment", Arguments: map[string]any{"id": "S-1"}}
