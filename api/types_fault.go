package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"time"
)

// FaultSpec is a fault kind and its parameters, written flat:
// {"kind": "latency", "delay": "250ms", "jitter": "50ms"}. `mcpchaos
// faults` and docs/faults.md list the kinds and their parameters.
type FaultSpec struct {
	Kind   string
	Params map[string]any
}

// MarshalJSON writes the kind and the parameters in one object.
func (f FaultSpec) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(f.Params)+1)
	maps.Copy(m, f.Params)
	m["kind"] = f.Kind
	return json.Marshal(m)
}

// UnmarshalJSON reads {"kind": ..., params...}; numbers stay exact.
func (f *FaultSpec) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "fault",
			Message: `fault must be an object like {"kind": "latency", "delay": "250ms"}`}
	}
	kind, ok := m["kind"].(string)
	if !ok {
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "fault.kind",
			Message: fmt.Sprintf("fault.kind must be a string, not %s", jsonType(m["kind"]))}
	}
	delete(m, "kind")
	f.Kind, f.Params = kind, m
	if len(m) == 0 {
		f.Params = nil
	}
	return nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "missing"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	}
	return "an object"
}

// FaultRequest is the body that creates or replaces a fault (a rule):
// POST /v1/faults, PUT /v1/faults/{name} and the per-upstream routes.
type FaultRequest struct {
	// Name identifies the fault; in a PUT it may be left out, and if
	// given must match the URL.
	Name string `json:"name,omitempty"`
	// Upstream restricts the fault to one upstream; empty means every
	// upstream. The per-upstream routes set it.
	Upstream string `json:"upstream,omitempty"`
	// When is an expr-lang condition (`method == "POST"`); empty means
	// always.
	When  string    `json:"when,omitempty"`
	Fault FaultSpec `json:"fault"`
	// Probability in [0, 1]; omitted means 1.
	Probability *float64 `json:"probability,omitempty"`
	// Limit caps the number of injections; 0 means no cap.
	Limit int `json:"limit,omitempty"`
	// TTL is how long the fault lives ("30s", "10m") from when it was
	// first added; omitted means the server's default. Longer than the
	// server's maximum is refused. Replacing a fault with another ttl
	// moves its expiry to added_at + ttl; only POST .../extend makes it
	// live longer from now.
	TTL string `json:"ttl,omitempty"`
	// Enabled defaults to true.
	Enabled *bool `json:"enabled,omitempty"`
}

// FaultPatch is the body of PATCH on a fault: the fields given replace the
// fault's, the others stay. A change to upstream, when, fault,
// probability or limit makes a new definition: the hit count and the TTL
// restart. enabled and ttl are not part of the definition: the hit count
// stays, and a new ttl counts from when the fault was added (POST
// .../extend counts from now).
type FaultPatch struct {
	Upstream    *string    `json:"upstream,omitempty"`
	When        *string    `json:"when,omitempty"`
	Fault       *FaultSpec `json:"fault,omitempty"`
	Probability *float64   `json:"probability,omitempty"`
	Limit       *int       `json:"limit,omitempty"`
	TTL         *string    `json:"ttl,omitempty"`
	Enabled     *bool      `json:"enabled,omitempty"`
}

// FaultExtend is the body of POST /v1/faults/{name}/extend.
type FaultExtend struct {
	// TTL is how long from now the fault lives ("10m"), at most the
	// server's maximum.
	TTL string `json:"ttl"`
}

// Fault states.
const (
	StateActive    = "active"
	StateDisabled  = "disabled"
	StateExpired   = "expired"
	StateExhausted = "exhausted"
)

// Fault is a fault as the server holds it: its definition, and its
// expiry and hit count.
type Fault struct {
	Name        string    `json:"name"`
	Upstream    string    `json:"upstream,omitempty"`
	When        string    `json:"when,omitempty"`
	Fault       FaultSpec `json:"fault"`
	Probability float64   `json:"probability"`
	Limit       int       `json:"limit,omitempty"`
	// TTL is the fault's lifetime; empty when it never expires (a
	// config-file rule with ttl never).
	TTL     string `json:"ttl,omitempty"`
	Enabled bool   `json:"enabled"`
	// State is active, disabled, expired (TTL passed; removed by the next
	// sweep) or exhausted (limit reached).
	State string `json:"state"`
	// Hits counts injections.
	Hits    int64     `json:"hits"`
	AddedAt time.Time `json:"added_at"`
	// ExpiresAt is when the fault goes away; null when never.
	ExpiresAt *time.Time `json:"expires_at"`
	// ExpiresInSeconds is the time left, 0 once expired; null when never.
	ExpiresInSeconds *float64 `json:"expires_in_seconds"`
}

// FaultList is the body of a list of faults, and of PUT /v1/faults.
type FaultList struct {
	Faults []Fault `json:"faults"`
}

// FaultSet is the body of PUT /v1/faults: the complete new set.
type FaultSet struct {
	Faults []FaultRequest `json:"faults"`
}
