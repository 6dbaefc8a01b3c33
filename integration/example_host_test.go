package integration_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ory/dockertest/v3"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/integration"
)

// TestCreateOrderOnHostSurvivesLostReply is the other layout (shown
// verbatim in docs/dockertest.md): the server under test and its upstream
// run in the test process, only mcpchaos in a container. The container
// reaches them at the network's gateway; the server reaches mcpchaos's
// proxy at the port Docker publishes it on.
func TestCreateOrderOnHostSurvivesLostReply(t *testing.T) {
	pool := newPool(t) // your suite's
	network := integration.NetworkT(t, pool)
	chaos := integration.StartT(t, pool, integration.Options{
		Networks: []*dockertest.Network{network}, ExposedPorts: []string{"9100/tcp"}})
	warehouseURL := serveOnHost(t, pool, network, newWarehouse())
	// The server calls the warehouse through the proxy, from the host.
	serverURL := serveOnHost(t, pool, network, newOrderServer("http://"+chaos.HostPort("9100/tcp")))
	report, err := chaos.RunScenario(t.Context(), lostOrderReply,
		integration.Vars{"SERVER": serverURL + "/mcp", "WAREHOUSE": warehouseURL})
	if err != nil {
		t.Fatal(err)
	}
	integration.AssertNoFindings(t, report, judge.SeverityError)
	integration.AssertSideEffects(t, report)
}

// lostOrderReply loses the warehouse's reply to create_order. The proxy
// listens on 9100 in the mcpchaos container, published on the host.
const lostOrderReply = `
name: create_order survives a lost reply
server:
  url: '{{ var "SERVER" }}'
upstreams:
  - name: warehouse
    protocol: http
    listen: 0.0.0.0:9100
    target: '{{ var "WAREHOUSE" }}'
rules:
  - name: lose the reply
    upstream: warehouse
    when: method == "POST" && path == "/orders"
    fault: {kind: response_lost, mode: hang}
agent:
  personas: [diligent]
  hosts: [swallow]
  budget: 6
steps:
  - tool: create_order
    args: {sku: SKU-1, qty: 2}
side_effects:
  - name: order placed
    upstream: warehouse
    match: method == "POST" && path == "/orders" && upstream_status == 201
    intended: 1
`

// serveOnHost serves h in this process on the network's gateway and
// returns its URL as containers on the network reach it.
func serveOnHost(t *testing.T, pool *dockertest.Pool, network *dockertest.Network, h http.Handler) string {
	t.Helper()
	l, err := integration.ListenHost(t.Context(), pool, network)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serving on %s: %v", l.Addr(), err)
		}
	})
	return "http://" + l.Addr().String()
}

// newOrderServer is the server under test: go-sdk, its tools registered
// with the typed mcp.AddTool, so a handler's error would become an isError
// result. It replies to a lost warehouse reply with what is known.
func newOrderServer(warehouseURL string) http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	hc := &http.Client{Timeout: 1500 * time.Millisecond}
	mcp.AddTool(s, &mcp.Tool{Name: "create_order", Description: "Place an order.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
			body, _ := json.Marshal(in)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, warehouseURL+"/orders", strings.NewReader(string(body)))
			req.Header.Set("Idempotency-Key", fmt.Sprintf("%s-%d", in.SKU, in.Qty))
			resp, err := hc.Do(req)
			if err != nil {
				return errorResult(fmt.Sprintf("The warehouse did not confirm the order for %s, so it may or may not have been placed. "+
					"Do not retry create_order yet: call find_orders with sku %s to check.", in.SKU, in.SKU)), nil, nil
			}
			resp.Body.Close()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Order placed for " + in.SKU + "."}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "find_orders", Description: "List the orders for a SKU.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, in findArgs) (*mcp.CallToolResult, any, error) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, warehouseURL+"/orders?sku="+in.SKU, nil)
			resp, err := hc.Do(req)
			if err != nil {
				return errorResult("The warehouse did not answer the lookup. Nothing was changed. Retry once; if it fails again, tell the user."), nil, nil
			}
			defer resp.Body.Close()
			var orders []orderArgs
			_ = json.NewDecoder(resp.Body).Decode(&orders)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d order(s) for %s.", len(orders), in.SKU)}}}, nil, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

type orderArgs struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

type findArgs struct {
	SKU string `json:"sku"`
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

// newWarehouse is the upstream: it places an order once per
// Idempotency-Key (201, then 200 for a replay) and lists orders by SKU.
func newWarehouse() http.Handler {
	var mu sync.Mutex
	keys := map[string]bool{}
	var orders []orderArgs
	mux := http.NewServeMux()
	mux.HandleFunc("POST /orders", func(w http.ResponseWriter, r *http.Request) {
		var o orderArgs
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&o); err != nil {
			http.Error(w, "bad order", http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if k := r.Header.Get("Idempotency-Key"); keys[k] {
			w.WriteHeader(http.StatusOK)
			return
		} else if k != "" {
			keys[k] = true
		}
		orders = append(orders, o)
		w.WriteHeader(http.StatusCreated)
	})
	mux.HandleFunc("GET /orders", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var out []orderArgs
		for _, o := range orders {
			if o.SKU == r.URL.Query().Get("sku") {
				out = append(out, o)
			}
		}
		_ = json.NewEncoder(w).Encode(out)
	})
	return mux
}
