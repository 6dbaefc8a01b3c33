package front

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpchaos/mcpchaos/internal/mcptest"
)

// TestMain lets the test binary serve the test MCP server (the wrapped
// subprocess), and fails the tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	mcptest.Main()
	goleak.VerifyTestMain(m)
}
