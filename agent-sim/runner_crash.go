package agentsim

import (
	"context"
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// crashHost is the part of the host that deals with a server that died:
// how many restarts its profile still allows, and how to restart.
type crashHost struct {
	profile persona.HostProfile
	left    int
	spec    driver.ServerSpec
	opts    driver.Options
}

func newCrashHost(h persona.HostProfile, spec driver.ServerSpec, opts driver.Options) *crashHost {
	return &crashHost{profile: h, left: h.Reconnects(), spec: spec, opts: opts}
}

// afterCrash does what the host does when the agent wants to go on after
// the last call of res crashed the server: restart the server and start a
// new session, while the profile allows it, or end the run. It records
// what it did in that call's Crash, and returns the session to go on
// with, or false when the run ends (res.stopReason says why). A run that
// ends so has not converged, and the judge does not call it a retry loop
// (MC012 reports the crash).
func (h *crashHost) afterCrash(ctx context.Context, sess *driver.Session, res *loopResult) (*driver.Session, bool) {
	last := &res.calls[len(res.calls)-1]
	if h.left <= 0 {
		last.Crash.Host = transcript.HostStopped
		res.stopReason = fmt.Sprintf("the server crashed; the host stops (after_crash: %s)", h.profile.AfterCrash)
		if h.profile.AfterCrash != persona.CrashStop {
			res.stopReason = "the server crashed again after the host restarted it; the host stops"
		}
		return sess, false
	}
	h.left--
	// The old session is over; closing it reaps the process.
	sess.Close()
	next, err := driver.Connect(ctx, h.spec, h.opts)
	if err != nil {
		last.Crash.Host = "reconnect failed: " + err.Error()
		res.stopReason = "the server crashed and the host could not restart it: " + err.Error()
		return sess, false
	}
	last.Crash.Host = transcript.HostReconnected
	return next, true
}

// cloneCrash copies a crash, so that a call record does not share it
// with the session's answer to later calls.
func cloneCrash(c *transcript.Crash) *transcript.Crash {
	if c == nil {
		return nil
	}
	d := *c
	return &d
}
