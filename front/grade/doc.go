// Package grade grades live MCP traffic with the simulator's reader and
// judge: [Live] is the [front.Grader] of a [front.Recorder]. Per call it
// runs the judge (agent-sim/judge) on the call as the front recorded it,
// with the upstream exchanges and injections the fault layer attributed to
// it, and keeps the channel and message findings. Per session it finds
// retry loops (the same call repeated after failures) and duplicated side
// effects (writes committed upstream more than once for the same call),
// counted from the exchanges the way the runner counts a side-effect
// matcher's, since live traffic has no scenario to name its side effects.
package grade
