package integration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	dc "github.com/ory/dockertest/v3/docker"

	"github.com/mcpchaos/mcpchaos/api"
)

// probeTimeout bounds each readiness probe: a probe that hangs (a port
// published before the process listens) must not eat pool.MaxWait.
const probeTimeout = 2 * time.Second

// logTail is how many log lines an error about a dead container quotes.
const logTail = "20"

// ErrExited is returned when the mcpchaos container is no longer running:
// during [Start] (a bad config, a missing token), or during
// [Chaos.RunScenario] (it was killed).
var ErrExited = errors.New("the mcpchaos container is not running")

// waitReady retries, with dockertest's backoff, until the API answers
// /healthz and accepts the token, or ctx ends, or pool.MaxWait has
// passed. A container that exited stops the wait at once, with its last
// log lines.
func (c *Chaos) waitReady(ctx context.Context) error {
	bo := backoff.NewExponentialBackOff()
	bo.MaxInterval = 5 * time.Second
	bo.MaxElapsedTime = c.pool.MaxWait
	if bo.MaxElapsedTime == 0 {
		bo.MaxElapsedTime = time.Minute
	}
	err := backoff.Retry(func() error {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		if err := c.checkRunning(pctx); err != nil {
			if errors.Is(err, ErrExited) {
				return backoff.Permanent(err)
			}
			return err
		}
		if _, err := c.Client.Health(pctx); err != nil {
			return err
		}
		// The token is checked once the API is up: a wrong one is a
		// mistake to report, not a state to wait out.
		if _, err := c.Client.Upstreams(pctx); err != nil {
			var ae *api.Error
			if errors.As(err, &ae) {
				return backoff.Permanent(err)
			}
			return err
		}
		return nil
	}, backoff.WithContext(bo, ctx))
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (last attempt: %w)", context.Cause(ctx), err)
		}
		return fmt.Errorf("integration: waiting for mcpchaos (%s) at %s: %w", c.Name, c.APIURL, err)
	}
	return nil
}

// checkRunning returns an error wrapping [ErrExited], with the exit code
// and the last log lines, when the container has stopped.
func (c *Chaos) checkRunning(ctx context.Context) error {
	ct, err := c.pool.Client.InspectContainerWithContext(c.id, ctx)
	if err != nil {
		var nsc *dc.NoSuchContainer
		if errors.As(err, &nsc) {
			return fmt.Errorf("%w: %s was removed", ErrExited, c.Name)
		}
		return fmt.Errorf("inspecting %s: %w", c.Name, err)
	}
	if ct.State.Running {
		return nil
	}
	return c.exitError(ctx, ct.State.ExitCode)
}

// exitError describes the stopped container: its exit code and what it
// said last.
func (c *Chaos) exitError(ctx context.Context, code int) error {
	logs, _ := containerLogs(ctx, c.pool, c.id, logTail)
	logs = strings.TrimSpace(logs)
	if logs == "" {
		return fmt.Errorf("%w: %s exited with status %d", ErrExited, c.Name, code)
	}
	return fmt.Errorf("%w: %s exited with status %d; its last output:\n%s", ErrExited, c.Name, code, logs)
}
