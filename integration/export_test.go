package integration

import (
	"testing"

	"github.com/ory/dockertest/v3"
)

// SuiteDependencies stands, in example_test.go, for what a user's suite
// already has before mcpchaos joins: a pool, a network, and the upstream
// beneath the server under test (here a fresh demo carrier container, so
// that every run of the example starts with an empty carrier). It skips
// the test without a Docker engine, like the other container tests.
func SuiteDependencies(t *testing.T) (pool *dockertest.Pool, network *dockertest.Network, carrierURL string) {
	t.Helper()
	e := need(t)
	s := e.demoStack(t)
	name := e.name("carrier-" + randomHex(3))
	r, err := e.startCarrier(s.net, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return e.pool, s.net, "http://" + name + ":8080"
}
