// Package arch holds the test that keeps the project's package
// dependencies pointing one way (docs/architecture.md):
//
//	rules ← inject ← config ← agentsim ← api ← cmd/mcpchaos
//
// with demo and examples as leaves that only the command and the API use,
// and integration a client of the API. Inside agent-sim the simulator's
// packages point one way too:
//
//	reader ← transcript ← driver, persona, judge ← report
//	driver, persona, judge ← scenario ← agentsim (the runner)
package arch
