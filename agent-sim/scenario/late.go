package scenario

import (
	"time"

	"github.com/mcpchaos/mcpchaos/config"
)

// MaxLateGrace caps the default late grace, so that a long call_timeout
// does not make every unanswered call wait minutes more.
const MaxLateGrace = 30 * time.Second

// DefaultLateGrace is the late grace of a scenario that does not set
// agent.late_grace: twice the call timeout, at most MaxLateGrace. A call
// that gets no answer thus waits at most three times call_timeout.
func DefaultLateGrace(callTimeout time.Duration) time.Duration {
	return min(2*callTimeout, MaxLateGrace)
}

// decodeLateGrace reads agent.late_grace, after call_timeout.
func (a *AgentSettings) decodeLateGrace(n config.Node) error {
	d, err := n.Duration()
	if err != nil {
		return err
	}
	switch {
	case !n.Present():
		d = DefaultLateGrace(a.CallTimeout)
	case d < 0:
		return n.Errorf(config.ErrInvalid, "must not be negative (0s turns the wait for late replies off)")
	}
	a.LateGrace = d
	return nil
}
