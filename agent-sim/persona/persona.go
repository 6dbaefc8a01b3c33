package persona

import (
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"strings"
)

// Turn is everything a persona may read when it decides what to do after
// a call: the step it is serving, the call just made (with what reached
// the model), the run so far, and the tools it knows.
type Turn struct {
	// Step is the scenario step being served (from 1); StepTool and
	// StepArgs are its call as the scenario wrote it.
	Step     int
	StepTool string
	StepArgs map[string]any
	// Call is the call just made: Outcome, Observation and Signals are
	// filled, Decision is empty.
	Call transcript.Call
	// History holds every earlier call of this run, with its Decision.
	History []transcript.Call
	// Tools is what tools/list returned.
	Tools []transcript.Tool
	// Followups gives the arguments for tools a reply may point to, by
	// tool name.
	Followups map[string]map[string]any
	// Budget is the number of calls allowed; Used those made so far,
	// this one included. Personas do not stop for the budget: the runner
	// cuts the run, and the judge reports it (MC002).
	Budget, Used int
}

// Persona is a scripted model: a deterministic policy that reads what
// reached the model and chooses the next action. Every [Decision] says
// which rule fired (Reason) and which text made it fire (Phrase).
type Persona interface {
	// Name is how scenarios and flags refer to the persona.
	Name() string
	// Decide chooses what to do after t.Call.
	Decide(t Turn) transcript.Decision
}

// Personas returns the built-in personas, default first: diligent,
// stubborn, literal. Each call returns new values; there is no registry to
// mutate.
func Personas() []Persona {
	return []Persona{
		scripted{name: "diligent", vagueRetries: 1},
		scripted{name: "stubborn", vagueRetries: -1},
		scripted{name: "literal", vagueRetries: 1, literal: true},
	}
}

// ByName returns the named built-in persona.
func ByName(name string) (Persona, error) {
	var names []string
	for _, p := range Personas() {
		if p.Name() == name {
			return p, nil
		}
		names = append(names, p.Name())
	}
	return nil, fmt.Errorf("unknown persona %q (known: %s)", name, strings.Join(names, ", "))
}

// defaultRetryLimit bounds retries when a message says the failure is
// transient but names no bound.
const defaultRetryLimit = 2

// Reasons a decision records. They are stable: reports and tests quote
// them.
const (
	ReasonSuccess        = "the call succeeded"
	ReasonNoEvidence     = "nothing reached the model: retrying unchanged, the correct inference from no evidence"
	ReasonNoInformation  = "the host showed a failure with no information: retrying unchanged"
	ReasonCheckState     = "the outcome of a write is unknown: checking state before retrying"
	ReasonStillUnknown   = "the outcome is still unknown after a check and a retry: stopping and reporting"
	ReasonExists         = "the state check shows the write happened"
	ReasonNotExists      = "the state check does not show the write: retrying it once"
	ReasonCheckUnread    = "could not read the state check: stopping rather than risking a duplicate"
	ReasonFollow         = "following the next tool the message names"
	ReasonFollowDone     = "followed the named next action"
	ReasonFollowFailed   = "the named next action failed too: stopping and reporting"
	ReasonChangedArgs    = "retrying with the arguments the message asks for"
	ReasonDoNotRetry     = "told not to retry: stopping and reporting"
	ReasonBoundedRetry   = "told the failure is transient: bounded retry"
	ReasonBoundSpent     = "bounded retries spent: stopping and reporting"
	ReasonUnknownNoCheck = "the outcome is unknown and no tool can check it: stopping rather than risking a duplicate"
	ReasonUserAction     = "the message names an action for the user: stopping and reporting"
	ReasonAfterCheck     = "told to retry only after a check no listed tool makes: stopping and reporting"
	ReasonUnreadRetry    = "could not read the reply (no guidance a model could take): trying again"
	ReasonUnreadStop     = "could not read the reply again: stopping and reporting"
	ReasonVagueRetry     = "vague error: trying again"
	ReasonVagueStop      = "vague error again: stopping and reporting"
	ReasonObeyRetry      = "obeying the message: retrying"
	ReasonObeyChanged    = "obeying the message: retrying with the arguments it gives"
	ReasonObeyCall       = "obeying the message: calling the tool it names"
	ReasonObeyStop       = "obeying the message: stopping"
)

// decide builds a decision that makes a call.
func decideCall(a transcript.Action, tool string, args map[string]any, reason, phrase string) transcript.Decision {
	return transcript.Decision{Action: a, Tool: tool, Args: copyArgs(args), Reason: reason, Phrase: phrase}
}

// decideEnd builds a decision that makes no call (next or stop).
func decideEnd(a transcript.Action, reason, phrase string) transcript.Decision {
	return transcript.Decision{Action: a, Reason: reason, Phrase: phrase}
}

// copyArgs returns a shallow copy, so a decision never aliases the
// scenario's maps.
func copyArgs(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
