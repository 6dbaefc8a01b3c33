package agentsim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestRunInternal: the run's internal values are each upstream's real
// target and proxy address, and the resolved env values given to the
// server.
func TestRunInternal(t *testing.T) {
	sc := &scenario.Scenario{Server: driver.ServerSpec{Env: map[string]string{"LEDGER_URL": `{{ upstream "ledger" }}`, "MODE": "production"}}}
	ups := []inject.UpstreamInfo{{Name: "ledger", Protocol: "http", Listen: "127.0.0.1:41234", Target: "ledger.internal:8443"}}
	got := runInternal(sc, ups, "")
	want := []string{"ledger.internal:8443", "127.0.0.1:41234", "http://127.0.0.1:41234", "production"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run internal values (-want +got):\n%s", diff)
	}
}
