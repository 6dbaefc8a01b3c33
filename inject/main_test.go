package inject

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them:
// every proxy, connection and helper must be owned and waited for.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
