package persona

import (
	"fmt"
	"reflect"

	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// callRole is why the call being judged was made.
type callRole int

const (
	// roleStep: the step's own call, or a retry of it.
	roleStep callRole = iota
	// roleCheck: a state check after an ambiguous write.
	roleCheck
	// roleFollowup: a tool a message pointed to.
	roleFollowup
)

// stepView is the part of a run a persona reasons about: the calls of the
// current step, oldest first, the one just made last.
type stepView struct {
	t     Turn
	calls []transcript.Call
}

func newStepView(t Turn) stepView {
	var calls []transcript.Call
	for _, c := range t.History {
		if c.Step == t.Call.Step {
			calls = append(calls, c)
		}
	}
	return stepView{t: t, calls: append(calls, t.Call)}
}

// previous is the call before the current one in this step, if any.
func (v stepView) previous() (transcript.Call, bool) {
	if len(v.calls) < 2 {
		return transcript.Call{}, false
	}
	return v.calls[len(v.calls)-2], true
}

// role reads why the current call was made from the previous decision.
func (v stepView) role() callRole {
	prev, ok := v.previous()
	if !ok || prev.Decision.Tool != v.t.Call.Tool {
		return roleStep
	}
	switch prev.Decision.Action {
	case transcript.ActCheckState:
		return roleCheck
	case transcript.ActCallTool:
		if v.t.Call.Tool != v.t.StepTool {
			return roleFollowup
		}
	}
	return roleStep
}

// trigger is the latest call of the step whose decision pointed
// elsewhere (call_tool or check_state): the message being followed.
func (v stepView) trigger() (transcript.Call, bool) {
	for i := len(v.calls) - 2; i >= 0; i-- {
		switch v.calls[i].Decision.Action {
		case transcript.ActCallTool, transcript.ActCheckState:
			return v.calls[i], true
		}
	}
	return transcript.Call{}, false
}

// count returns how many calls of this step went to tool (with args, when
// args is non-nil).
func (v stepView) count(tool string, args map[string]any) int {
	n := 0
	for _, c := range v.calls {
		if c.Tool == tool && (args == nil || sameArgs(c.Args, args)) {
			n++
		}
	}
	return n
}

// attempts is how many times the current call, tool and arguments, was
// made in this step.
func (v stepView) attempts() int {
	return v.count(v.t.Call.Tool, argsOrEmpty(v.t.Call.Args))
}

// checkedAndRetried reports that this step already ran a state check and
// retried the write after it.
func (v stepView) checkedAndRetried() bool {
	checked := false
	for _, c := range v.calls[:len(v.calls)-1] {
		if c.Decision.Action == transcript.ActCheckState {
			checked = true
		}
		if checked && c.Decision.Action == transcript.ActRetry && c.Decision.Tool == v.t.StepTool {
			return true
		}
	}
	return false
}

func argsOrEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// sameArgs compares argument maps; nil and empty are the same.
func sameArgs(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// observed returns the signals of what reached the model for c: none
// when the host showed nothing; the raw reply's when the host passed it
// through; else those of the host's own text ("tool call failed").
func observed(c transcript.Call, tools []transcript.Tool) reader.Signals {
	if !c.Observation.Seen || c.Observation.Text == "" {
		return reader.Signals{}
	}
	if c.Observation.Text == c.Text {
		if c.Signals != nil {
			return c.Signals.Signals
		}
		return transcript.ReadCall(c, tools)
	}
	ch := transcript.ChannelSuccess
	if c.Observation.IsError {
		ch = transcript.ChannelToolError
	}
	return transcript.ReadReply(ch, 0, c.Observation.Text, nil, tools, c.Tool)
}

// followArgs returns the arguments for a call to tool the message pointed
// to: the scenario's followups for it; else the step's arguments that the
// tool's schema names (a find-by-order tool gets the order id).
func followArgs(t Turn, tool string) map[string]any {
	if a, ok := t.Followups[tool]; ok {
		return copyArgs(a)
	}
	out := map[string]any{}
	for _, p := range paramsOf(t.Tools, tool) {
		if v, ok := t.StepArgs[p]; ok {
			out[p] = v
		} else if v, ok := t.Call.Args[p]; ok {
			out[p] = v
		}
	}
	return out
}

// hintedArgs returns the current call's arguments changed as the message
// asks: the scenario's followups for the tool, then the hints that carry
// a value, then, for hinted arguments still missing, a stable made-up
// value (a model invents an idempotency key when told to set one).
func hintedArgs(t Turn, hints []reader.Arg) map[string]any {
	out := copyArgs(argsOrEmpty(t.Call.Args))
	for k, v := range t.Followups[t.Call.Tool] {
		out[k] = v
	}
	for _, h := range hints {
		if h.Value != nil && h.Value != "" {
			out[h.Name] = h.Value
		} else if _, ok := out[h.Name]; !ok {
			out[h.Name] = fmt.Sprintf("agent-sim-step-%d", t.Step)
		}
	}
	return out
}

// observedLookup reads what a state check's result shows about the
// item the ambiguous write made, from what reached the model: the raw
// reply (text and structuredContent) when the host passed it through,
// else the host's own text.
func observedLookup(c transcript.Call) reader.Lookup {
	r := reader.Reply{Channel: reader.Success, Text: c.Observation.Text}
	if c.Observation.Text == c.Text {
		r.Structured = c.Structured
	}
	return reader.ReadLookup(r)
}
