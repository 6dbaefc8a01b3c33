package integration

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// Ports inside the containers of the demo stack.
const (
	carrierPort = 8080 // demo-carrier --listen
	serverPort  = 8080 // demo-server --http
	// Each server's carrier is an mcpchaos proxy on a port of its own, so
	// that runs against both servers can go on at once.
	carelessProxyPort = 9101
	carefulProxyPort  = 9102
	// haltProxyPort is the proxy the shared mcpchaos's config declares.
	haltProxyPort = 9000
)

// demoStack is the demo on one Docker network, every part a container of
// the image under test with another command: the carrier API, the
// careless and the careful MCP servers (Streamable HTTP), and mcpchaos,
// whose proxies sit between each server and the carrier.
type demoStack struct {
	net       *dockertest.Network
	carrier   *dockertest.Resource
	careless  *dockertest.Resource
	careful   *dockertest.Resource
	chaos     *Chaos
	resources []*dockertest.Resource
}

// stack returns the shared demo stack, starting it on first use; the end
// of TestMain removes it.
func (e *testEnv) demoStack(t *testing.T) *demoStack {
	t.Helper()
	e.stackOnce.Do(func() { e.stack, e.stackErr = e.startStack() })
	if e.stackErr != nil {
		t.Fatalf("starting the demo stack: %v", e.stackErr)
	}
	return e.stack
}

// name is a container or network name unique to this test run.
func (e *testEnv) name(role string) string { return role + "-" + e.runID }

func (e *testEnv) startStack() (*demoStack, error) {
	s := &demoStack{}
	var err error
	if s.net, err = e.network(e.name("mcpchaos-it")); err != nil {
		return nil, err
	}
	fail := func(err error) (*demoStack, error) {
		return nil, errors.Join(err, s.close())
	}
	if s.carrier, err = e.startCarrier(s.net, e.name("carrier")); err != nil {
		return fail(err)
	}
	s.resources = append(s.resources, s.carrier)
	chaosName := e.name("mcpchaos")
	for _, v := range []struct {
		variant string
		port    int
		res     **dockertest.Resource
	}{{"careless", carelessProxyPort, &s.careless}, {"careful", carefulProxyPort, &s.careful}} {
		// The server's upstream is mcpchaos's proxy, by container name.
		carrierURL := fmt.Sprintf("http://%s:%d", chaosName, v.port)
		if *v.res, err = e.startServer(s.net, e.name(v.variant), v.variant, carrierURL); err != nil {
			return fail(err)
		}
		s.resources = append(s.resources, *v.res)
	}
	s.chaos, err = Start(context.Background(), e.pool, Options{
		Image: e.image, Name: chaosName, Networks: []*dockertest.Network{s.net}, Labels: e.labels(),
		Config:       haltConfig(e.carrierURL()),
		ExposedPorts: []string{fmt.Sprintf("%d/tcp", haltProxyPort)},
	})
	if err != nil {
		return fail(err)
	}
	return s, nil
}

// carrierURL is the carrier's URL on the stack's network.
func (e *testEnv) carrierURL() string {
	return fmt.Sprintf("http://%s:%d", e.name("carrier"), carrierPort)
}

// haltConfig is the shared mcpchaos's config: one proxy in front of the
// carrier, published so that the test sends requests through it.
func haltConfig(carrierURL string) string {
	return fmt.Sprintf(`upstreams:
  - name: carrier
    protocol: http
    listen: 0.0.0.0:%d
    target: %s
`, haltProxyPort, carrierURL)
}

// close removes the stack's containers, then its network.
func (s *demoStack) close() error {
	var errs []error
	if s.chaos != nil {
		errs = append(errs, s.chaos.Close())
	}
	for _, r := range s.resources {
		errs = append(errs, r.Close())
	}
	if s.net != nil {
		errs = append(errs, s.net.Close())
	}
	return errors.Join(errs...)
}

// network creates a labelled network.
func (e *testEnv) network(name string) (*dockertest.Network, error) {
	n, err := e.pool.CreateNetwork(name, func(o *dc.CreateNetworkOptions) { o.Labels = withLabels(e.labels()) })
	if err != nil {
		return nil, fmt.Errorf("creating network %s: %w", name, err)
	}
	return n, nil
}

// run starts a labelled container of the image under test with cmd,
// publishing port on loopback.
func (e *testEnv) run(net *dockertest.Network, name string, port int, cmdEnv []string, cmd ...string) (*dockertest.Resource, error) {
	p := dc.Port(fmt.Sprintf("%d/tcp", port))
	repo, tag, _ := strings.Cut(e.image, ":")
	opts := &dockertest.RunOptions{
		Name: name, Repository: repo, Tag: tag, Cmd: cmd, Env: cmdEnv, Labels: withLabels(e.labels()),
		ExposedPorts: []string{string(p)},
		PortBindings: map[dc.Port][]dc.PortBinding{p: {{HostIP: "127.0.0.1"}}},
	}
	if net != nil {
		opts.Networks = []*dockertest.Network{net}
	}
	r, err := e.pool.RunWithOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	return r, nil
}

// startCarrier runs the demo carrier API and waits until it answers.
func (e *testEnv) startCarrier(net *dockertest.Network, name string) (*dockertest.Resource, error) {
	r, err := e.run(net, name, carrierPort, nil, "demo-carrier", "--listen", fmt.Sprintf("0.0.0.0:%d", carrierPort))
	if err != nil {
		return nil, err
	}
	if err := e.waitHTTP(r, carrierPort, "/stats"); err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}

// startServer runs the demo MCP server of variant over Streamable HTTP,
// its carrier at carrierURL, and waits until it answers.
func (e *testEnv) startServer(net *dockertest.Network, name, variant, carrierURL string) (*dockertest.Resource, error) {
	r, err := e.run(net, name, serverPort, []string{"CARRIER_URL=" + carrierURL},
		"demo-server", "--variant", variant, "--http", fmt.Sprintf("0.0.0.0:%d", serverPort))
	if err != nil {
		return nil, err
	}
	if err := e.waitHTTP(r, serverPort, "/mcp"); err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}

// waitHTTP retries (pool.Retry, never a sleep) until an HTTP GET of path
// on the container's published port gets any response.
func (e *testEnv) waitHTTP(r *dockertest.Resource, port int, path string) error {
	url := fmt.Sprintf("http://%s%s", hostPort(e.pool, r, fmt.Sprintf("%d/tcp", port)), path)
	hc := &http.Client{Timeout: 2 * time.Second}
	err := e.pool.Retry(func() error {
		resp, err := hc.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	if err != nil {
		logs, _ := containerLogs(context.Background(), e.pool, r.Container.ID, logTail)
		return fmt.Errorf("%s did not answer at %s: %w\n%s", r.Container.Name, url, err, logs)
	}
	return nil
}
