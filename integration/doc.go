// Package integration runs mcpchaos as a container in Go integration tests
// written with github.com/ory/dockertest/v3: start it next to the MCP
// server under test and its upstreams, point the server's upstream
// addresses at mcpchaos's proxies, run a scenario through the control API,
// and assert on the report.
//
//	pool, _ := dockertest.NewPool("")
//	chaos := integration.StartT(t, pool, integration.Options{Networks: []*dockertest.Network{net}})
//	report, err := chaos.RunScenario(t.Context(), scenarioYAML, integration.Vars{"SERVER": serverURL})
//	integration.AssertNoFindings(t, report, agentsim.SeverityError)
//	integration.AssertSideEffects(t, report)
//
// The server under test and its upstreams may be containers on a network
// (reached by name) or run in the test process ([HostIP], [ListenHost]).
// Every container and network the package creates is labelled
// ([Labels]), and [Sweep] removes what killed test runs left.
//
// The image is not pulled: build it with `make image` (mcpchaos:dev) or
// load it with `docker load`; see docs/dockertest.md. The package talks to
// mcpchaos only through its control API (api.Client) and to Docker only
// through the dockertest pool it is given.
//
// The package's own tests (integration_test.go and the others) start the
// demo carrier, the demo MCP servers and mcpchaos as containers on one
// network and check the demo's findings end to end.
package integration
