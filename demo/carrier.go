package demo

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// Shipment is a committed shipment, as the carrier API returns it.
type Shipment struct {
	ID      string `json:"id"`
	OrderID string `json:"order_id"`
	Address string `json:"address"`
	Status  string `json:"status"`
}

// shipmentRequest is the body of POST /shipments.
type shipmentRequest struct {
	OrderID        string `json:"order_id"`
	Address        string `json:"address"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// IdempotencyHeader is the request header a client sets so that a repeated
// POST /shipments returns the first shipment instead of committing another.
const IdempotencyHeader = "Idempotency-Key"

// Carrier is an in-memory carrier API: the upstream beneath the demo
// server's tools. Every committed shipment is a side effect the simulator
// counts, so the carrier is deliberately simple and exact: ids are
// sequential (SHP-0001, …) and GET /stats reports the committed count.
//
// A Carrier is safe for concurrent use. The zero value is not; use
// [NewCarrier].
type Carrier struct {
	mu        sync.Mutex
	shipments []Shipment
	// byKey maps an idempotency key to the index of its shipment.
	byKey map[string]int
}

// NewCarrier returns an empty carrier.
func NewCarrier() *Carrier {
	return &Carrier{byKey: make(map[string]int)}
}

// Count returns how many shipments have been committed.
func (c *Carrier) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.shipments)
}

// Shipments returns a copy of every committed shipment, oldest first.
func (c *Carrier) Shipments() []Shipment {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Shipment(nil), c.shipments...)
}

// create commits a shipment unless key names an earlier one. It reports
// whether a new shipment was committed; conflict is true when key was
// used before with different order or address.
func (c *Carrier) create(orderID, address, key string) (s Shipment, created, conflict bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if key != "" {
		if i, ok := c.byKey[key]; ok {
			prev := c.shipments[i]
			if prev.OrderID != orderID || prev.Address != address {
				return prev, false, true
			}
			return prev, false, false
		}
	}
	s = Shipment{
		ID:      fmt.Sprintf("SHP-%04d", len(c.shipments)+1),
		OrderID: orderID,
		Address: address,
		Status:  "created",
	}
	c.shipments = append(c.shipments, s)
	if key != "" {
		c.byKey[key] = len(c.shipments) - 1
	}
	return s, true, false
}

// get returns the shipment with the given id.
func (c *Carrier) get(id string) (Shipment, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.shipments {
		if s.ID == id {
			return s, true
		}
	}
	return Shipment{}, false
}

// find returns the shipments of an order, or all when orderID is empty.
// It never returns nil, so the JSON list is [] rather than null.
func (c *Carrier) find(orderID string) []Shipment {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []Shipment{}
	for _, s := range c.shipments {
		if orderID == "" || s.OrderID == orderID {
			out = append(out, s)
		}
	}
	return out
}

// Handler returns the carrier's HTTP API:
//
//	POST /shipments         {order_id, address, idempotency_key?} → 201 shipment
//	                        (200 and the earlier shipment for a known key,
//	                        422 for a key reused with other values)
//	GET  /shipments/{id}    → 200 shipment | 404
//	GET  /shipments?order_id=X → 200 {"shipments": [...]}
//	GET  /stats             → 200 {"created": n}
func (c *Carrier) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /shipments", c.handleCreate)
	mux.HandleFunc("GET /shipments/{id}", c.handleGet)
	mux.HandleFunc("GET /shipments", c.handleFind)
	mux.HandleFunc("GET /stats", c.handleStats)
	return mux
}

func (c *Carrier) handleCreate(w http.ResponseWriter, r *http.Request) {
	var req shipmentRequest
	// 64 KiB is far beyond any real shipment and bounds a hostile body.
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{"request body is not valid JSON"})
		return
	}
	if req.OrderID == "" || req.Address == "" {
		writeJSON(w, http.StatusUnprocessableEntity, apiError{"order_id and address are required"})
		return
	}
	key := r.Header.Get(IdempotencyHeader)
	if key == "" {
		key = req.IdempotencyKey
	}
	s, created, conflict := c.create(req.OrderID, req.Address, key)
	switch {
	case conflict:
		writeJSON(w, http.StatusUnprocessableEntity, apiError{"idempotency key was already used with a different order_id or address"})
	case created:
		writeJSON(w, http.StatusCreated, s)
	default:
		writeJSON(w, http.StatusOK, s)
	}
}

func (c *Carrier) handleGet(w http.ResponseWriter, r *http.Request) {
	s, ok := c.get(r.PathValue("id"))
	if !ok {
		writeJSON(w, http.StatusNotFound, apiError{"shipment not found"})
		return
	}
	writeJSON(w, http.StatusOK, s)
}

func (c *Carrier) handleFind(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, shipmentList{Shipments: c.find(r.URL.Query().Get("order_id"))})
}

func (c *Carrier) handleStats(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, stats{Created: c.Count()})
}

// shipmentList is the body of GET /shipments.
type shipmentList struct {
	Shipments []Shipment `json:"shipments"`
}

// stats is the body of GET /stats, read by side-effect probes.
type stats struct {
	Created int `json:"created"`
}

// apiError is the body of every non-2xx carrier response.
type apiError struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// The status is already sent; a failed write means the client left,
	// and there is nobody to tell.
	_ = json.NewEncoder(w).Encode(v)
}
