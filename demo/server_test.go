package demo

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect runs the demo server of variant v in memory and returns a real
// go-sdk client session to it. version, if set, is the protocol version the
// client asks for.
func connect(t *testing.T, v Variant, carrierURL, version string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := NewServer(v, carrierURL).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// callResult is what a tools/call produced, reduced to what tests assert.
type callResult struct {
	isError bool
	text    string
	// rpc is the JSON-RPC error, when the call failed at the protocol
	// level.
	rpc *jsonrpc.Error
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) callResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	var out callResult
	if err != nil {
		if !errors.As(err, &out.rpc) {
			t.Fatalf("%s: not a JSON-RPC error: %v", tool, err)
		}
		return out
	}
	out.isError = res.IsError
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	out.text = strings.Join(parts, "\n")
	return out
}

// carrierURL serves a fresh carrier on 127.0.0.1:0.
func carrierURL(t *testing.T) (string, *Carrier) {
	t.Helper()
	c := NewCarrier()
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	return srv.URL, c
}

// refusedURL returns a URL on 127.0.0.1 whose port refuses connections:
// it was bound and released.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// handlerURL serves h on 127.0.0.1:0. Requests still blocked in h when the
// test ends are released first, so the server closes promptly.
func handlerURL(t *testing.T, h func(w http.ResponseWriter, r *http.Request, release <-chan struct{})) string {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h(w, r, release) }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs before srv.Close
	return srv.URL
}

func hangURL(t *testing.T) string {
	return handlerURL(t, func(_ http.ResponseWriter, r *http.Request, release <-chan struct{}) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
}

var order = map[string]any{"order_id": "A-1001", "address": "1 Main St"}

func hostPort(url string) string { return strings.TrimPrefix(url, "http://") }

// assertNoLeak fails if text carries anything internal.
func assertNoLeak(t *testing.T, text string) {
	t.Helper()
	for _, bad := range []string{"127.0.0.1", "http://", "/shipments", "dial tcp", "context deadline", "EOF", "Post \"", "Get \""} {
		if strings.Contains(text, bad) {
			t.Errorf("careful text leaks %q: %s", bad, text)
		}
	}
}

func TestSuccessPath(t *testing.T) {
	for _, v := range Variants() {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			url, c := carrierURL(t)
			cs := connect(t, v, url, "")
			r := call(t, cs, ToolCreateShipment, order)
			if r.rpc != nil || r.isError || !strings.Contains(r.text, "SHP-0001") {
				t.Fatalf("create: %+v", r)
			}
			if r := call(t, cs, ToolGetShipment, map[string]any{"shipment_id": "SHP-0001"}); r.isError || !strings.Contains(r.text, "A-1001") {
				t.Errorf("get: %+v", r)
			}
			if r := call(t, cs, ToolFindShipments, map[string]any{"order_id": "A-1001"}); r.isError || !strings.Contains(r.text, "SHP-0001") {
				t.Errorf("find: %+v", r)
			}
			if c.Count() != 1 {
				t.Errorf("Count = %d", c.Count())
			}
		})
	}
}

func TestCarrierDown(t *testing.T) {
	url := refusedURL(t)
	t.Run("careless", func(t *testing.T) {
		r := call(t, connect(t, Careless, url, ""), ToolCreateShipment, order)
		if r.rpc == nil {
			t.Fatalf("want a JSON-RPC error, got %+v", r)
		}
		if !strings.Contains(r.rpc.Message, hostPort(url)) || !strings.Contains(r.rpc.Message, "connection refused") {
			t.Errorf("message %q lacks host:port or the cause", r.rpc.Message)
		}
	})
	t.Run("terse", func(t *testing.T) {
		r := call(t, connect(t, Terse, url, ""), ToolCreateShipment, order)
		if !r.isError || r.text != "shipment failed" {
			t.Errorf("got %+v", r)
		}
		if r := call(t, connect(t, Terse, url, ""), ToolFindShipments, map[string]any{"order_id": "A-1001"}); !r.isError || r.text != "lookup failed" {
			t.Errorf("find: %+v", r)
		}
	})
	t.Run("careful", func(t *testing.T) {
		cs := connect(t, Careful, url, "")
		r := call(t, cs, ToolCreateShipment, order)
		if !r.isError {
			t.Fatalf("want isError, got %+v", r)
		}
		for _, want := range []string{"cannot be reached", "connection refused", "Nothing was created", "Retry once", "stop and tell the user"} {
			if !strings.Contains(r.text, want) {
				t.Errorf("text lacks %q: %s", want, r.text)
			}
		}
		assertNoLeak(t, r.text)
		r = call(t, cs, ToolFindShipments, map[string]any{"order_id": "A-1001"})
		if !r.isError || !strings.Contains(r.text, "Retry once") {
			t.Errorf("find: %+v", r)
		}
		assertNoLeak(t, r.text)
	})
}

func TestCarrierHangs(t *testing.T) {
	// A hung carrier becomes the server's own verdict (its UpstreamTimeout
	// fires first): each case checks the verdict's text, which the client's
	// deadline could not have produced.
	t.Run("careless", func(t *testing.T) {
		t.Parallel()
		url := hangURL(t)
		r := call(t, connect(t, Careless, url, ""), ToolCreateShipment, order)
		want := `Post "` + url + `/shipments": context deadline exceeded`
		if r.rpc == nil || !strings.Contains(r.rpc.Message, want) {
			t.Fatalf("want JSON-RPC error containing %q, got %+v", want, r)
		}
	})
	t.Run("terse", func(t *testing.T) {
		t.Parallel()
		r := call(t, connect(t, Terse, hangURL(t), ""), ToolCreateShipment, order)
		if !r.isError || r.text != "shipment failed" {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("careful", func(t *testing.T) {
		t.Parallel()
		r := call(t, connect(t, Careful, hangURL(t), ""), ToolCreateShipment, order)
		want := "The carrier did not answer in time, so the shipment for order A-1001 may or may not have been created. " +
			"Do not retry create_shipment yet: call find_shipments with order_id A-1001 to check."
		if !r.isError || !strings.HasPrefix(r.text, want) {
			t.Fatalf("got %+v", r)
		}
		assertNoLeak(t, r.text)
	})
}

func TestCarefulIdempotentWrite(t *testing.T) {
	url, c := carrierURL(t)
	cs := connect(t, Careful, url, "")
	call(t, cs, ToolCreateShipment, order)
	r := call(t, cs, ToolCreateShipment, order)
	if r.isError || !strings.Contains(r.text, "already existed") {
		t.Errorf("replay: %+v", r)
	}
	if c.Count() != 1 {
		t.Fatalf("careful committed %d shipments for one order, want 1", c.Count())
	}
	// A different address is a different shipment.
	call(t, cs, ToolCreateShipment, map[string]any{"order_id": "A-1001", "address": "2 Main St"})
	if c.Count() != 2 {
		t.Errorf("Count = %d, want 2", c.Count())
	}
}

func TestCarelessAndTerseDuplicate(t *testing.T) {
	for _, v := range []Variant{Careless, Terse} {
		url, c := carrierURL(t)
		cs := connect(t, v, url, "")
		call(t, cs, ToolCreateShipment, order)
		call(t, cs, ToolCreateShipment, order)
		if c.Count() != 2 {
			t.Errorf("%s: Count = %d, want 2 (no idempotency)", v, c.Count())
		}
	}
}

func TestNotFound(t *testing.T) {
	url, _ := carrierURL(t)
	args := map[string]any{"shipment_id": "SHP-9999"}
	if r := call(t, connect(t, Terse, url, ""), ToolGetShipment, args); !r.isError || r.text != "not found" {
		t.Errorf("terse: %+v", r)
	}
	r := call(t, connect(t, Careless, url, ""), ToolGetShipment, args)
	if !r.isError || !strings.Contains(r.text, hostPort(url)) || !strings.Contains(r.text, "404") {
		t.Errorf("careless: %+v", r)
	}
	r = call(t, connect(t, Careful, url, ""), ToolGetShipment, args)
	if !r.isError || !strings.Contains(r.text, "Do not retry") || !strings.Contains(r.text, "find_shipments") {
		t.Errorf("careful: %+v", r)
	}
	assertNoLeak(t, r.text)
}

func TestCarefulFindGuidesNextStep(t *testing.T) {
	url, _ := carrierURL(t)
	cs := connect(t, Careful, url, "")
	r := call(t, cs, ToolFindShipments, map[string]any{"order_id": "A-1001"})
	if r.isError || !strings.Contains(r.text, "No shipment exists") || !strings.Contains(r.text, "create_shipment") {
		t.Errorf("empty: %+v", r)
	}
	call(t, cs, ToolCreateShipment, order)
	r = call(t, cs, ToolFindShipments, map[string]any{"order_id": "A-1001"})
	if r.isError || !strings.Contains(r.text, "SHP-0001") || !strings.Contains(r.text, "do not call create_shipment again") {
		t.Errorf("found: %+v", r)
	}
}

func TestCarefulUpstreamStatuses(t *testing.T) {
	cases := []struct {
		name string
		h    http.HandlerFunc
		want []string
	}{
		{"503 with Retry-After", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "7")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}, []string{"HTTP 503", "Nothing was created", "Retry once after 7 seconds"}},
		{"502", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "bad gateway at 10.0.0.7:5432", http.StatusBadGateway)
		}, []string{"HTTP 502", "may or may not have been created", "find_shipments with order_id A-1001"}},
		{"422", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, `{"error":"bad address"}`, http.StatusUnprocessableEntity)
		}, []string{"rejected", "Nothing was created", "Do not retry this call unchanged"}},
		{"201 cut short", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", "200")
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"id":"SHP-00`))
		}, []string{"accepted the shipment", "cut off", "Do not retry create_shipment", "find_shipments"}},
		{"connection dropped", func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}, []string{"connection to the carrier broke", "may or may not have been created", "find_shipments"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := handlerURL(t, func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) { tc.h(w, r) })
			r := call(t, connect(t, Careful, url, ""), ToolCreateShipment, order)
			if !r.isError {
				t.Fatalf("want isError, got %+v", r)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.text, w) {
					t.Errorf("text lacks %q: %s", w, r.text)
				}
			}
			assertNoLeak(t, r.text)
			if strings.Contains(r.text, "10.0.0.7") || strings.Contains(r.text, "bad address") {
				t.Errorf("carrier body leaked: %s", r.text)
			}
		})
	}
}

func TestCarelessStatusIsRawToolError(t *testing.T) {
	url := handlerURL(t, func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
		http.Error(w, "upstream db 10.0.0.7:5432 down", http.StatusServiceUnavailable)
	})
	r := call(t, connect(t, Careless, url, ""), ToolCreateShipment, order)
	if !r.isError || !strings.Contains(r.text, hostPort(url)) || !strings.Contains(r.text, "10.0.0.7:5432") {
		t.Errorf("got %+v", r)
	}
}

func TestCarefulInvalidArgumentsByProtocolVersion(t *testing.T) {
	url, _ := carrierURL(t)
	bad := map[string]any{"order_id": "A-1001"}
	r := call(t, connect(t, Careful, url, "2025-06-18"), ToolCreateShipment, bad)
	if r.rpc == nil || r.rpc.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("2025-06-18: want -32602, got %+v", r)
	}
	for _, v := range []string{"2025-11-25", ""} {
		r := call(t, connect(t, Careful, url, v), ToolCreateShipment, bad)
		if !r.isError || !strings.Contains(r.text, "address") {
			t.Errorf("%q: want isError naming the argument, got %+v", v, r)
		}
	}
}

func TestAnnotations(t *testing.T) {
	url, _ := carrierURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tools := func(v Variant) map[string]*mcp.Tool {
		res, err := connect(t, v, url, "").ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]*mcp.Tool{}
		for _, tl := range res.Tools {
			m[tl.Name] = tl
		}
		if len(m) != 3 {
			t.Fatalf("%s lists %d tools", v, len(m))
		}
		return m
	}
	for _, tl := range tools(Careless) {
		if tl.Annotations != nil {
			t.Errorf("careless %s declares annotations %+v", tl.Name, tl.Annotations)
		}
	}
	terse := tools(Terse)
	if a := terse[ToolCreateShipment].Annotations; a != nil && (a.IdempotentHint || a.ReadOnlyHint) {
		t.Errorf("terse create_shipment claims %+v", a)
	}
	careful := tools(Careful)
	if a := careful[ToolCreateShipment].Annotations; a == nil || !a.IdempotentHint || a.ReadOnlyHint {
		t.Errorf("careful create_shipment: %+v", a)
	}
	for _, n := range []string{ToolGetShipment, ToolFindShipments} {
		if a := careful[n].Annotations; a == nil || !a.ReadOnlyHint {
			t.Errorf("careful %s: %+v", n, a)
		}
		if a := terse[n].Annotations; a == nil || !a.ReadOnlyHint {
			t.Errorf("terse %s: %+v", n, a)
		}
	}
}
