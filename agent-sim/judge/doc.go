// Package judge grades a run's calls: [Judge] turns the calls, the tools
// the server listed and the side-effect counts into [Finding]s (MC001…,
// docs/checks.md), each with its severity, its evidence and what it rests
// on ([Basis]): a fact (the protocol, the side-effect ledger, a fault's
// declared outcome, a value the run knows is internal) keeps the check's
// severity; a reading of the reply's text is at most a warning unless the
// reader is confident; a reply that could not be read gives info only.
//
// The judge is usable outside the simulator's runner: it needs neither
// the driver nor the runner, only calls recorded as [transcript.Call]
// values, wherever they come from. A caller that recorded real traffic
// fills an [Input] — the calls in order, with their channel, code and
// text (and the fault layer's injections, exchanges and side-effect
// counts when it has them), the tools from tools/list, the values it
// knows are internal — and calls Judge; a call without signals is read
// with the default reader (agent-sim/reader) before it is graded. The
// checks that rest on the agent's loop (MC002, the retry loop) need
// Converged and Budget; leave Budget 0 when there is no budget.
package judge
