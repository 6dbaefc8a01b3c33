package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/ctlapi"
)

// controller is a proxy's control plane, as the rule-change test uses it.
type controller interface {
	// warm makes one harmless call so that the timed call finds a
	// ready keep-alive connection, as a long-lived control client would.
	warm(ctx context.Context) error
	// addReset adds, on role's proxy, a fault that ends a connection at
	// its next client byte. It returns how long the change took inside
	// the proxy process when the proxy says so (mcpchaos), or -1.
	addReset(ctx context.Context, role string) (time.Duration, error)
	// removeReset removes it.
	removeReset(ctx context.Context, role string) error
	// addLatency adds, on role's proxy, a latency of delay on every
	// exchange (mcpchaos http) or chunk (Toxiproxy), both ways: the
	// large-body test's fault.
	addLatency(ctx context.Context, role string, delay time.Duration) error
	// removeLatency removes it.
	removeLatency(ctx context.Context, role string) error
}

// Names of the faults the rule-change and the large-body tests add.
const (
	resetName   = "bench-reset"
	latencyName = "bench-latency"
)

// restClient makes JSON calls to a control API on loopback.
type restClient struct {
	base string
	hc   *http.Client
}

func newRESTClient(addr string) *restClient {
	return &restClient{base: "http://" + addr, hc: &http.Client{Timeout: 10 * time.Second}}
}

// call sends in (if not nil) as JSON and decodes the answer into out (if
// not nil). Any status outside 2xx is an error carrying the body.
func (c *restClient) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(b))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// mcpControl drives the mcpchaos-proxy program's control server.
type mcpControl struct{ c *restClient }

func (m mcpControl) warm(ctx context.Context) error {
	// Removing a rule that does not exist is a cheap 404: the point is
	// the connection, not the answer.
	_ = m.c.call(ctx, http.MethodDelete, "/rules/warm-up", nil, nil)
	return nil
}

func (m mcpControl) addReset(ctx context.Context, role string) (time.Duration, error) {
	return m.put(ctx, resetName, ctlapi.Rule{
		Upstream: role, Kind: "reset",
		Params: map[string]any{"bytes": 0, "direction": "request"},
	})
}

func (m mcpControl) removeReset(ctx context.Context, _ string) error {
	return m.c.call(ctx, http.MethodDelete, "/rules/"+resetName, nil, nil)
}

// addLatency puts a latency rule with no condition: it matches every
// request, and delays it before it is forwarded and its reply before it
// is delivered.
func (m mcpControl) addLatency(ctx context.Context, role string, delay time.Duration) error {
	_, err := m.put(ctx, latencyName, ctlapi.Rule{
		Upstream: role, Kind: "latency",
		Params: map[string]any{"delay": delay.String(), "direction": "both"},
	})
	return err
}

func (m mcpControl) removeLatency(ctx context.Context, _ string) error {
	return m.c.call(ctx, http.MethodDelete, "/rules/"+latencyName, nil, nil)
}

// put puts rule under name and returns how long PutRule took in the
// proxy process.
func (m mcpControl) put(ctx context.Context, name string, rule ctlapi.Rule) (time.Duration, error) {
	var took ctlapi.Took
	err := m.c.call(ctx, http.MethodPut, "/rules/"+name, rule, &took)
	return time.Duration(took.Nanos), err
}

// toxiControl drives Toxiproxy's REST API.
type toxiControl struct{ c *restClient }

func (t toxiControl) warm(ctx context.Context) error {
	return t.c.call(ctx, http.MethodGet, "/version", nil, nil)
}

// addReset adds a reset_peer toxic with timeout 0 on the client-to-
// upstream stream: the next chunk a client sends ends its connection,
// the counterpart of mcpchaos's reset rule with bytes 0, direction
// request.
func (t toxiControl) addReset(ctx context.Context, role string) (time.Duration, error) {
	err := t.c.call(ctx, http.MethodPost, "/proxies/"+role+"/toxics", map[string]any{
		"name": resetName, "type": "reset_peer", "stream": "upstream", "toxicity": 1.0,
		"attributes": map[string]any{"timeout": 0},
	}, nil)
	return -1, err
}

func (t toxiControl) removeReset(ctx context.Context, role string) error {
	return t.c.call(ctx, http.MethodDelete, "/proxies/"+role+"/toxics/"+resetName, nil, nil)
}

// toxiStreams are Toxiproxy's two directions: a toxic acts on one.
func toxiStreams() []string { return []string{"upstream", "downstream"} }

// addLatency adds a latency toxic on each stream: Toxiproxy delays each
// chunk it reads by delay (less the time the chunk already waited), in
// milliseconds, so delay is rounded to a whole millisecond.
func (t toxiControl) addLatency(ctx context.Context, role string, delay time.Duration) error {
	for _, s := range toxiStreams() {
		err := t.c.call(ctx, http.MethodPost, "/proxies/"+role+"/toxics", map[string]any{
			"name": latencyName + "-" + s, "type": "latency", "stream": s, "toxicity": 1.0,
			"attributes": map[string]any{"latency": delay.Milliseconds(), "jitter": 0},
		}, nil)
		if err != nil {
			return err
		}
	}
	return nil
}

func (t toxiControl) removeLatency(ctx context.Context, role string) error {
	var errs []error
	for _, s := range toxiStreams() {
		errs = append(errs, t.c.call(ctx, http.MethodDelete, "/proxies/"+role+"/toxics/"+latencyName+"-"+s, nil, nil))
	}
	return errors.Join(errs...)
}
