package integration

import (
	"testing"

	"github.com/ory/dockertest/v3"
)

// SuiteDependencies stands, in example_test.go, for what a user's suite
// already has before mcpchaos joins: a pool, a network of its own, and
// the upstream beneath the server under test (here a fresh demo carrier
// container, so that every run of the example starts with an empty
// carrier). It skips the test without a Docker engine, like the other
// container tests.
func SuiteDependencies(t *testing.T) (pool *dockertest.Pool, network *dockertest.Network, carrierURL string) {
	t.Helper()
	e := need(t)
	net, err := e.network(e.name("suite-" + randomHex(3)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = net.Close() })
	name := e.name("carrier-" + randomHex(3))
	r, err := e.startCarrier(net, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return e.pool, net, "http://" + name + ":8080"
}

// SuitePool stands, in example_host_test.go, for the suite's own
// dockertest pool. It skips the test without a Docker engine, like the
// other container tests.
func SuitePool(t *testing.T) *dockertest.Pool {
	t.Helper()
	return need(t).pool
}
