package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// stdioScenario runs the careless demo server over stdio inside the
// mcpchaos container itself ({{ mcpchaos }} is /mcpchaos there), its
// carrier the carrier container: the other shape a scenario can have.
func stdioScenario(carrierURL, orderID string) string {
	return strings.NewReplacer("${CARRIER}", carrierURL, "${ORDER}", orderID).Replace(`
name: careless over stdio, in the mcpchaos container
server:
  command: ["{{ mcpchaos }}", "demo-server", "--variant", "careless"]
  env:
    CARRIER_URL: '{{ upstream "carrier" }}'
upstreams:
  - name: carrier
    protocol: http
    target: ${CARRIER}
rules:
  - name: response_lost
    upstream: carrier
    when: method == "POST" && path == "/shipments"
    fault: {kind: response_lost, mode: hang}
agent:
  personas: [diligent]
  hosts: [swallow]
  budget: 6
  call_timeout: 5s
steps:
  - tool: create_shipment
    args: {order_id: ${ORDER}, address: "1 Main St"}
side_effects:
  - name: shipment created
    upstream: carrier
    match: method == "POST" && path == "/shipments" && upstream_status == 201
    intended: 1
`)
}

// TestKilledMidRun kills the mcpchaos container while a run is under way:
// RunScenario must say the run failed, and why, well before any deadline.
func TestKilledMidRun(t *testing.T) {
	e := need(t)
	s := e.demoStack(t)
	t.Parallel()
	chaos, err := Start(t.Context(), e.pool, Options{Image: e.image, Name: e.name("mcpchaos-killed"),
		Networks: []*dockertest.Network{s.net}, Labels: e.labels()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = chaos.Close() })

	order := orderID(e, "killed")
	// A generous deadline: the test asserts the run ends long before it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := chaos.RunScenario(ctx, stdioScenario(e.carrierURL(), order), nil)
		done <- err
	}()

	// Mid-run: the carrier has committed the order's first shipment.
	carrier := "http://" + hostPort(e.pool, s.carrier, fmt.Sprintf("%d/tcp", carrierPort))
	err = e.pool.Retry(func() error {
		select {
		case err := <-done:
			return backoff.Permanent(fmt.Errorf("the run ended before the kill: %v", err))
		default:
		}
		return hasShipment(carrier, order)
	})
	if err != nil {
		t.Fatalf("the run never reached the carrier: %v", err)
	}
	killed := time.Now()
	if err := e.pool.Client.KillContainer(dc.KillContainerOptions{ID: chaos.Resource.Container.ID}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Logf("RunScenario returned %v after the kill: %v", time.Since(killed).Round(time.Millisecond), err)
		if !errors.Is(err, ErrRunFailed) || !errors.Is(err, ErrExited) {
			t.Errorf("error %v, want one wrapping ErrRunFailed and ErrExited", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("RunScenario still waiting 15s after the mcpchaos container was killed")
	}
}

// hasShipment fails unless the carrier holds a shipment of order.
func hasShipment(carrier, order string) error {
	hc := &http.Client{Timeout: 2 * time.Second}
	resp, err := hc.Get(carrier + "/shipments?order_id=" + order)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var l struct {
		Shipments []json.RawMessage `json:"shipments"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		return err
	}
	if len(l.Shipments) == 0 {
		return errors.New("no shipment yet")
	}
	return nil
}
