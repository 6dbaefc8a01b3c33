package driver

import (
	"os"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
)

// TestMain lets the test binary serve as the helper server that the
// driver tests start (see simtest.Main).
func TestMain(m *testing.M) { simtest.Main(m) }

func helperSpec(mode string) ServerSpec {
	return ServerSpec{Command: []string{os.Args[0]}, Env: map[string]string{simtest.HelperEnv: mode}}
}

func fastOptions() Options {
	return Options{CallTimeout: 300 * time.Millisecond, Grace: 300 * time.Millisecond, ConnectTimeout: 20 * time.Second}
}

// inMemory is a spec that connects a fresh test server in process.
func inMemory(t testing.TB, protocol string) ServerSpec {
	return ServerSpec{Transport: simtest.InMemory(t), Protocol: protocol}
}
