package persona

import "fmt"

// What a host does after the server crashed, for [HostProfile.AfterCrash].
// Real hosts do not call a dead server again and again: they mark it
// disconnected, and some restart it once.
const (
	// CrashStop ends the run: the host shows the failure and the server's
	// tools are gone.
	CrashStop = "stop"
	// CrashReconnectOnce restarts the server (a stdio command is started
	// again, an HTTP server is connected to again) and initializes a new
	// session, once per run; a second crash ends the run.
	CrashReconnectOnce = "reconnect_once"
)

// DefaultAfterCrash is what a profile that does not say does.
const DefaultAfterCrash = CrashReconnectOnce

// validateAfterCrash reports an after_crash value that is not known.
func (h HostProfile) validateAfterCrash() error {
	switch h.AfterCrash {
	case "", CrashStop, CrashReconnectOnce:
		return nil
	}
	return fmt.Errorf("host profile %q: after_crash: %q is not %s or %s", h.Name, h.AfterCrash, CrashStop, CrashReconnectOnce)
}

// Reconnects is how many times in a run this host restarts a crashed
// server.
func (h HostProfile) Reconnects() int {
	if h.AfterCrash == CrashStop {
		return 0
	}
	return 1
}
