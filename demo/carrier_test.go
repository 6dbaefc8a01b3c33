package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// post sends a JSON body to the carrier and decodes the reply.
func post(t *testing.T, base, key string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, base+"/shipments", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set(IdempotencyHeader, key)
	}
	return send(t, req)
}

func get(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("%s %s: decoding: %v", req.Method, req.URL, err)
	}
	return resp.StatusCode, m
}

func TestCarrierCommitGetList(t *testing.T) {
	c := NewCarrier()
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()

	code, s := post(t, srv.URL, "", map[string]string{"order_id": "A-1", "address": "1 Main St"})
	if code != http.StatusCreated || s["id"] != "SHP-0001" || s["status"] != "created" || s["order_id"] != "A-1" {
		t.Fatalf("create: %d %v", code, s)
	}
	post(t, srv.URL, "", map[string]string{"order_id": "A-2", "address": "2 Main St"})
	post(t, srv.URL, "", map[string]string{"order_id": "A-1", "address": "3 Main St"})

	if code, s := get(t, srv.URL+"/shipments/SHP-0002"); code != 200 || s["order_id"] != "A-2" {
		t.Errorf("get: %d %v", code, s)
	}
	if code, s := get(t, srv.URL+"/shipments/SHP-0999"); code != 404 || s["error"] == nil {
		t.Errorf("get missing: %d %v", code, s)
	}
	_, l := get(t, srv.URL+"/shipments?order_id=A-1")
	if got := l["shipments"].([]any); len(got) != 2 {
		t.Errorf("list A-1: %v", l)
	}
	_, l = get(t, srv.URL+"/shipments?order_id=nope")
	if got, ok := l["shipments"].([]any); !ok || len(got) != 0 {
		t.Errorf("list of an unknown order must be [], got %v", l)
	}
	if _, st := get(t, srv.URL+"/stats"); st["created"] != 3.0 {
		t.Errorf("stats: %v", st)
	}
	if c.Count() != 3 || len(c.Shipments()) != 3 {
		t.Errorf("Count = %d", c.Count())
	}
}

func TestCarrierIdempotency(t *testing.T) {
	c := NewCarrier()
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	body := map[string]string{"order_id": "A-1", "address": "1 Main St"}

	if code, _ := post(t, srv.URL, "k1", body); code != http.StatusCreated {
		t.Fatalf("first: %d", code)
	}
	code, s := post(t, srv.URL, "k1", body)
	if code != http.StatusOK || s["id"] != "SHP-0001" {
		t.Fatalf("replay: %d %v", code, s)
	}
	// The key may also travel in the body.
	withKey := map[string]string{"order_id": "A-1", "address": "1 Main St", "idempotency_key": "k1"}
	if code, s := post(t, srv.URL, "", withKey); code != http.StatusOK || s["id"] != "SHP-0001" {
		t.Fatalf("body key replay: %d %v", code, s)
	}
	if code, _ := post(t, srv.URL, "k1", map[string]string{"order_id": "A-1", "address": "elsewhere"}); code != http.StatusUnprocessableEntity {
		t.Errorf("key reused with other values: %d, want 422", code)
	}
	if c.Count() != 1 {
		t.Fatalf("Count = %d after replays, want 1", c.Count())
	}
	// Without a key every POST commits.
	post(t, srv.URL, "", body)
	post(t, srv.URL, "", body)
	if c.Count() != 3 {
		t.Errorf("Count = %d, want 3", c.Count())
	}
}

func TestCarrierRejectsBadRequests(t *testing.T) {
	srv := httptest.NewServer(NewCarrier().Handler())
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/shipments", bytes.NewReader([]byte("{not json")))
	if code, _ := send(t, req); code != http.StatusBadRequest {
		t.Errorf("bad JSON: %d", code)
	}
	if code, _ := post(t, srv.URL, "", map[string]string{"order_id": "A-1"}); code != http.StatusUnprocessableEntity {
		t.Errorf("missing address: %d", code)
	}
}

func TestCarrierConcurrentReplaysCommitOnce(t *testing.T) {
	c := NewCarrier()
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			post(t, srv.URL, "same", map[string]string{"order_id": "A-1", "address": "1 Main St"})
			post(t, srv.URL, "", map[string]string{"order_id": fmt.Sprintf("B-%d", i), "address": "x"})
		})
	}
	wg.Wait()
	if c.Count() != 21 {
		t.Fatalf("Count = %d, want 21", c.Count())
	}
	seen := map[string]bool{}
	for _, s := range c.Shipments() {
		if seen[s.ID] {
			t.Fatalf("duplicate id %s", s.ID)
		}
		seen[s.ID] = true
	}
}

func TestCarrierServeShutsDownCleanly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := NewCarrier()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Serve(ctx, ln) }()

	// The listener is already bound, so the first request needs no wait.
	base := "http://" + ln.Addr().String()
	if code, _ := post(t, base, "", map[string]string{"order_id": "A-1", "address": "x"}); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	d := net.Dialer{Timeout: time.Second}
	if conn, err := d.Dial("tcp", ln.Addr().String()); err == nil {
		conn.Close()
		t.Error("listener still accepts after shutdown")
	}
}
