package integration

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// NewNetwork creates a user-defined bridge network labelled like every
// container this package starts ([Labels]), so that [Sweep] finds it.
// Containers on it reach each other by name, and reach this process at
// [HostIP]. Close it with its Close method once its containers are gone.
func NewNetwork(ctx context.Context, pool *dockertest.Pool, name string) (*dockertest.Network, error) {
	if pool == nil || pool.Client == nil {
		return nil, errors.New("integration: no dockertest pool")
	}
	n, err := pool.CreateNetwork(name, func(o *dc.CreateNetworkOptions) {
		o.Labels = withLabels(o.Labels)
		o.Context = ctx
	})
	if err != nil {
		return nil, fmt.Errorf("integration: creating network %s: %w", name, err)
	}
	return n, nil
}

// NetworkT is [NewNetwork] for a test, named after it: it stops the test
// when the network cannot be made and removes it when the test ends
// (after the containers started later, whose cleanups run first).
func NetworkT(t testing.TB, pool *dockertest.Pool) *dockertest.Network {
	t.Helper()
	n, err := NewNetwork(t.Context(), pool, "mcpchaos-"+randomHex(6))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("removing network %s: %v", n.Network.Name, err)
		}
	})
	return n
}

// HostIP returns the address containers on network dial to reach a
// server running in this process: the network's gateway, which is the
// Docker host's own address on that bridge. Listen on it ([ListenHost]),
// not on loopback, which containers cannot reach.
//
// The Network dockertest's CreateNetwork returns may carry no IPAM
// config (Docker fills it in afterwards), so the network is inspected.
// On Docker Desktop and with a remote engine the gateway is not an
// address of this machine: there, run the container with
// Options.ExtraHosts "host.docker.internal:host-gateway" and listen on
// an address that name reaches.
func HostIP(ctx context.Context, pool *dockertest.Pool, network *dockertest.Network) (string, error) {
	if pool == nil || pool.Client == nil || network == nil || network.Network == nil {
		return "", errors.New("integration: HostIP needs a pool and a network")
	}
	n, err := pool.Client.NetworkInfo(network.Network.ID)
	if err != nil {
		return "", fmt.Errorf("integration: inspecting network %s: %w", network.Network.Name, err)
	}
	for _, c := range n.IPAM.Config {
		ip := net.ParseIP(c.Gateway)
		if ip != nil && ip.To4() != nil {
			return ip.String(), nil
		}
	}
	for _, c := range n.IPAM.Config {
		if ip := net.ParseIP(c.Gateway); ip != nil {
			return ip.String(), nil
		}
	}
	return "", fmt.Errorf("integration: network %s has no gateway (driver %s, IPAM %+v)", n.Name, n.Driver, n.IPAM.Config)
}

// ListenHost listens on a free port of [HostIP]: a server or an upstream
// in this process that containers on network reach at the listener's
// address. Close the listener (or the server serving it) when done.
func ListenHost(ctx context.Context, pool *dockertest.Pool, network *dockertest.Network) (net.Listener, error) {
	ip, err := HostIP(ctx, pool, network)
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, fmt.Errorf("integration: listening on the gateway %s of network %s (is the engine on this machine?): %w",
			ip, network.Network.Name, err)
	}
	return l, nil
}
