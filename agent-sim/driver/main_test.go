package agentsim

import (
	"testing"
)

// TestMain lets the test binary serve as the helper server (see Main).
func TestMain(m *testing.M) { Main(m) }
