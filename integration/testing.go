package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ory/dockertest/v3"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
)

// cleanupTimeout bounds what a test's cleanup asks Docker: t.Context()
// is already cancelled when cleanups run.
const cleanupTimeout = 30 * time.Second

// StartT is [Start] for a test: it starts under t.Context(), stops the
// test at once (t.Fatal) when mcpchaos does not start, and registers a
// cleanup that removes the container, reporting a failure to do so
// (t.Errorf). When the test has failed by then, the cleanup first logs
// the container's output and the last run's report, so that a CI log
// holds what is needed to see why.
func StartT(t testing.TB, pool *dockertest.Pool, opts Options) *Chaos {
	t.Helper()
	c, err := Start(t.Context(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			c.logFailure(t)
		}
		if err := c.Close(); err != nil {
			t.Errorf("closing mcpchaos: %v", err)
		}
	})
	return c
}

// logFailure logs the container's output and the last report.
func (c *Chaos) logFailure(t testing.TB) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	logs, err := c.Logs(ctx)
	if err != nil {
		t.Logf("mcpchaos %s: its logs: %v", c.Name, err)
	}
	t.Logf("mcpchaos %s: its output:\n%s", c.Name, strings.TrimSpace(logs))
	rep := c.LastReport()
	if rep == nil {
		t.Logf("mcpchaos %s: no run returned a report", c.Name)
		return
	}
	var b strings.Builder
	if err := rep.WriteText(&b, report.TextOptions{}); err != nil {
		t.Logf("mcpchaos %s: writing the last report: %v", c.Name, err)
		return
	}
	t.Logf("mcpchaos %s: the last report:\n%s", c.Name, b.String())
}
