package agentsim

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
)

// TestMain lets the test binary serve as the helper server that the
// runner's tests start (see simtest.Main).
func TestMain(m *testing.M) { simtest.Main(m) }
