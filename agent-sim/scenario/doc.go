// Package scenario is the YAML scenario (docs/scenarios.md): [Parse] reads
// one, with its variables, files, matrix, limits and the agent, server and
// late-reply settings, into a [Scenario] whose errors name the file, line
// and field; [Scenario.Cells] expands its matrix; [Check] checks its steps
// and followups against the tools a server listed; the side-effect
// matchers and probes count what a run committed.
//
// It also generates arguments from input schemas ([NewArgGen]) and
// classifies tools by name and annotations ([ClassifyTool]), for
// `mcpchaos scan`, which writes a scenario from tools/list alone.
package scenario
