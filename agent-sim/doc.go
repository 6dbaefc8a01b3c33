// Package agentsim drives a real MCP server the way a model would, while
// the fault layer breaks the upstreams beneath its tools, and grades what
// the server's replies do to the agent.
//
// The folder is agent-sim/; the package is agentsim.
//
// A run goes: once the server has listed its tools, [CheckScenario]
// checks that the steps and followups name listed tools with arguments
// their input schemas accept (a scenario that does not fit is the user's
// error, not a finding); then the driver ([Session]) calls a tool and
// classifies the reply's [Channel]; a [HostProfile] decides what of it reaches the model
// (an [Observation]); [Extract] reads the message's features (retry
// guidance, next action, unknown outcome, leaks, imperatives) with
// documented heuristics; a [Persona] decides what to do next and records
// the phrase that made it decide; the loop ends when the persona stops or
// the budget is spent. The judge then turns the transcript, the fault
// layer's events and the side-effect counts into [Finding]s (MC001…), and
// a [Report] renders them as text, JSON, JUnit XML or Markdown. Quoted text
// in a report names the addresses the run created by placeholders
// ({{ upstream "carrier" }}), so that the same seed gives the same report.
//
// Everything is deterministic: no model, no randomness that is not drawn
// from the run's seed.
package agentsim
