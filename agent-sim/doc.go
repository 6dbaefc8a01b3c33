// Package agentsim runs the simulator: it drives a real MCP server the way
// a model would, while the fault layer breaks the upstreams beneath its
// tools, and grades what the server's replies do to the agent.
//
// The folder is agent-sim/; the package is agentsim. It holds the runner
// ([Run], [Check], [ListTools]) and what only the runner needs: the
// matrix and its scheduling, the fault layer's events attributed to
// calls (injections, upstream holds, side-effect counts) and the values
// a run knows are internal. The parts it composes are subpackages, each
// importing only those before it:
//
//   - agent-sim/reader turns a reply into signals with their source and
//     confidence;
//   - agent-sim/transcript is the call record: what a tools/call produced,
//     what reached the model, what the persona decided, and the facts the
//     fault layer saw;
//   - agent-sim/driver is the MCP client (stdio and Streamable HTTP);
//   - agent-sim/persona holds the scripted models and the host profiles;
//   - agent-sim/judge grades a run's calls into findings (MC001…);
//   - agent-sim/scenario is the YAML scenario, checked against tools/list;
//   - agent-sim/report renders findings as text, JSON, Markdown, HTML or
//     JUnit XML, with redaction and baseline comparison.
//
// A run goes: once the server has listed its tools, [scenario.Check]
// checks that the steps and followups name listed tools with arguments
// their input schemas accept (a scenario that does not fit is the user's
// error, not a finding); then the driver calls a tool and classifies the
// reply's channel; a host profile decides what of it reaches the model
// (an observation); the reader reads the reply into signals; a persona
// decides what to do next and records the phrase that made it decide;
// the loop ends when the persona stops or the budget is spent. The judge
// then turns the calls, the fault layer's events and the side-effect
// counts into findings, and a report renders them. Quoted text in a
// report names the addresses the run created by placeholders
// ({{ upstream "carrier" }}), so that the same seed gives the same report.
//
// Everything is deterministic: no model, no randomness that is not drawn
// from the run's seed.
package agentsim
