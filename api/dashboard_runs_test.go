package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/demo"
	"github.com/mcpchaos/mcpchaos/internal/browsertest"
)

// TestDashboardRunsOff: on a server started without runs, the page still
// shows the example scenarios, but its Start run button is off and says
// how to turn runs on, before anyone tries.
func TestDashboardRunsOff(t *testing.T) {
	exe := browsertest.Path(t)
	f := setup(t, "loopback", nil, api.Options{Token: testToken, RunOptions: agentsim.RunOptions{
		Builtins: map[string]agentsim.Builtin{"carrier": demo.StartCarrier}}})
	b := newBrowser(t, exe, strings.TrimPrefix(f.base, "http://"))
	b.do("opening the dashboard", 20*time.Second,
		chromedp.Navigate(f.base+"/"),
		chromedp.WaitVisible(chromedp.ID("token-input")),
		chromedp.SendKeys(chromedp.ID("token-input"), testToken+kb.Enter),
		chromedp.WaitReady(chromedp.CSS(`#example option`)),
	)
	b.waitFor("the run form saying runs are off", 10*time.Second,
		`document.getElementById("run-submit").disabled && document.getElementById("run-status").textContent.includes("--runs")`)
	if runs, err := f.client.Runs(t.Context()); err != nil || len(runs) != 0 {
		t.Errorf("runs on a server without --runs: %v, %v", runs, err)
	}
}
