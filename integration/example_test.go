package integration_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ory/dockertest/v3"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/integration"
)

// TestCreateShipmentSurvivesLostReply is the test an MCP server's author
// writes when everything runs in containers (docs/dockertest.md shows it
// verbatim): the suite's server and its carrier run under dockertest on a
// network; mcpchaos joins the network and sits between them, and a
// scenario loses the carrier's reply.
func TestCreateShipmentSurvivesLostReply(t *testing.T) {
	pool, network, carrierURL := dependencies(t) // your suite's: a pool, a network, the upstream
	chaos := integration.StartT(t, pool, integration.Options{Networks: []*dockertest.Network{network}})
	// The server under test calls its carrier through mcpchaos's proxy.
	serverURL := startShippingServer(t, pool, network, "http://"+chaos.Addr(9100))
	report, err := chaos.RunScenario(t.Context(), lostReply, integration.Vars{"SERVER": serverURL, "CARRIER": carrierURL})
	if err != nil {
		t.Fatal(err)
	}
	integration.AssertNoFindings(t, report, judge.SeverityError)
	integration.AssertSideEffects(t, report)
}

// lostReply is the scenario: the carrier commits the shipment and its
// reply never comes back. The proxy listens on 9100 in the mcpchaos
// container, where the server's CARRIER_URL points.
const lostReply = `
name: create_shipment survives a lost reply
server:
  url: '{{ var "SERVER" }}'
upstreams:
  - name: carrier
    protocol: http
    listen: 0.0.0.0:9100
    target: '{{ var "CARRIER" }}'
rules:
  - name: lose the reply
    upstream: carrier
    when: method == "POST" && path == "/shipments"
    fault: {kind: response_lost, mode: hang}
agent:
  personas: [diligent]
  hosts: [swallow]
  budget: 6
steps:
  - tool: create_shipment
    args: {order_id: A-1001, address: "1 Main St"}
followups:
  find_shipments: {order_id: A-1001}
side_effects:
  - name: shipment created
    upstream: carrier
    match: method == "POST" && path == "/shipments" && upstream_status == 201
    intended: 1
`

// dependencies is what the suite has before mcpchaos joins: a dockertest
// pool, a network, and the URL of the server's upstream on it (here a
// fresh demo carrier container).
func dependencies(t *testing.T) (*dockertest.Pool, *dockertest.Network, string) {
	return integration.SuiteDependencies(t)
}

// startShippingServer starts the server under test, its carrier at
// carrierURL, and returns its MCP URL on the network. Here it is the
// careful demo server from the mcpchaos image; yours is your own image.
func startShippingServer(t *testing.T, pool *dockertest.Pool, network *dockertest.Network, carrierURL string) string {
	t.Helper()
	image := os.Getenv(integration.ImageEnv)
	if image == "" {
		image = integration.DefaultImage
	}
	repo, tag, _ := strings.Cut(image, ":")
	// A name of its own: containers reach each other by name on a network.
	name := fmt.Sprintf("shipping-%d", time.Now().UnixNano())
	r, err := pool.RunWithOptions(&dockertest.RunOptions{
		Name: name, Repository: repo, Tag: tag, Networks: []*dockertest.Network{network}, ExposedPorts: []string{"8080/tcp"},
		Cmd: []string{"demo-server", "--variant", "careful", "--http", "0.0.0.0:8080"},
		Env: []string{"CARRIER_URL=" + carrierURL}, Labels: integration.Labels(), // for integration.Sweep
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pool.Purge(r) })
	hc := &http.Client{Timeout: 2 * time.Second}
	err = pool.Retry(func() error {
		resp, err := hc.Get("http://" + r.GetHostPort("8080/tcp") + "/mcp")
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + name + ":8080/mcp"
}

// ExampleStart starts mcpchaos on a network, runs a scenario through its
// API and prints the worst finding. In a test, use StartT and the Assert
// helpers (TestCreateShipmentSurvivesLostReply above).
func ExampleStart() {
	ctx := context.Background()
	pool, err := dockertest.NewPool("")
	if err != nil {
		log.Fatal(err)
	}
	network, err := integration.NewNetwork(ctx, pool, "shipping-test")
	if err != nil {
		log.Fatal(err)
	}
	defer network.Close()
	chaos, err := integration.Start(ctx, pool, integration.Options{Networks: []*dockertest.Network{network}})
	if err != nil {
		log.Fatal(err)
	}
	defer chaos.Close()
	// Start the server under test on the network, its upstream at
	// chaos.Addr(9100), then run a scenario whose upstream listens there
	// (listen: 0.0.0.0:9100) and forwards to the real upstream.
	scenario, err := os.ReadFile("testdata/lost-reply.yaml")
	if err != nil {
		log.Fatal(err)
	}
	report, err := chaos.RunScenario(ctx, string(scenario), integration.Vars{"SERVER": "http://shipping:8080/mcp"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.Summary.Worst)
}

// newPool is the suite's dockertest pool.
func newPool(t *testing.T) *dockertest.Pool { return integration.SuitePool(t) }
