package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// maxImageBytes is the bound on the image.
const maxImageBytes = 30 << 20

// TestImage checks what the Dockerfile promises: a small image, a
// non-root user, the API port, the health check command.
func TestImage(t *testing.T) {
	e := need(t)
	img, err := e.pool.Client.InspectImage(e.image)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("image %s: %.1f MB", e.image, float64(img.Size)/(1<<20))
	if img.Size > maxImageBytes {
		t.Errorf("image is %d bytes, over %d", img.Size, maxImageBytes)
	}
	cfg := img.Config
	if cfg.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532", cfg.User)
	}
	if !slices.Equal(cfg.Entrypoint, []string{"/mcpchaos"}) || !slices.Equal(cfg.Cmd, []string{"serve"}) {
		t.Errorf("entrypoint %q cmd %q", cfg.Entrypoint, cfg.Cmd)
	}
	if _, ok := cfg.ExposedPorts[dc.Port(APIPort)]; !ok {
		t.Errorf("exposed ports %v lack %s", cfg.ExposedPorts, APIPort)
	}
	if cfg.Healthcheck == nil || !slices.Equal(cfg.Healthcheck.Test, []string{"CMD", "/mcpchaos", "healthcheck"}) {
		t.Errorf("health check %+v", cfg.Healthcheck)
	}
}

// TestImageHealthcheck runs the health check command in the shared
// mcpchaos container, and waits for Docker to call the container healthy
// with it.
func TestImageHealthcheck(t *testing.T) {
	e := need(t)
	s := e.demoStack(t)
	t.Parallel()
	var out bytes.Buffer
	code, err := s.chaos.Resource.Exec([]string{"/mcpchaos", "healthcheck"}, dockertest.ExecOptions{StdOut: &out, StdErr: &out})
	if err != nil || code != 0 {
		t.Errorf("healthcheck in the container: exit %d, %v: %s", code, err, out.String())
	}
	// The first check runs one interval (10s) after the start.
	err = e.pool.Retry(func() error {
		c, err := e.pool.Client.InspectContainer(s.chaos.Resource.Container.ID)
		if err != nil {
			return err
		}
		if c.State.Health.Status != "healthy" {
			return fmt.Errorf("health %q", c.State.Health.Status)
		}
		return nil
	})
	if err != nil {
		t.Errorf("the container never became healthy: %v", err)
	}
}

// TestImageRefusesWithoutToken runs the image as is, without a token: the
// API would listen on every interface, so serve must refuse to start and
// say why.
func TestImageRefusesWithoutToken(t *testing.T) {
	e := need(t)
	t.Parallel()
	repo, tag, _ := strings.Cut(e.image, ":")
	r, err := e.pool.RunWithOptions(&dockertest.RunOptions{Name: e.name("mcpchaos-notoken"), Repository: repo, Tag: tag,
		Labels: e.labels()}, func(hc *dc.HostConfig) { hc.PublishAllPorts = false })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, err := e.pool.Client.WaitContainerWithContext(r.Container.ID, ctx)
	if err != nil {
		t.Fatalf("the container did not exit: %v", err)
	}
	logs, _ := containerLogs(ctx, e.pool, r.Container.ID, "all")
	if code != 2 || !strings.Contains(logs, "MCPCHAOS_TOKEN") {
		t.Errorf("exit %d, output %q; want 2 and a word on MCPCHAOS_TOKEN", code, logs)
	}
}

// TestStartErrors checks that Start says what is wrong, quickly, and
// leaves nothing behind (TestMain's leftover check).
func TestStartErrors(t *testing.T) {
	e := need(t)
	t.Parallel()
	_, err := Start(t.Context(), e.pool, Options{Image: "mcpchaos:absent-" + e.runID, Labels: e.labels()})
	if !errors.Is(err, ErrNoImage) || !strings.Contains(err.Error(), "make image") {
		t.Errorf("a missing image: %v", err)
	}
	start := time.Now()
	_, err = Start(t.Context(), e.pool, Options{Image: e.image, Name: e.name("mcpchaos-badconfig"), Labels: e.labels(),
		Config: "upstreams:\n  - name: carrier\n    protocol: http\n"})
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "target") {
		t.Errorf("a bad config: %v", err)
	}
	t.Logf("a bad config: %v", err)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("a bad config took %v to report", d)
	}
	if _, err := Start(t.Context(), e.pool, Options{Token: "short"}); err == nil {
		t.Error("a short token was accepted")
	}
}

// TestStartJoinsNetworks starts mcpchaos on two networks: engines before
// API 1.44 take one at creation, the other is connected before the start.
func TestStartJoinsNetworks(t *testing.T) {
	e := need(t)
	s := e.demoStack(t)
	t.Parallel()
	other, err := e.network(e.name("mcpchaos-it-other"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	chaos, err := Start(t.Context(), e.pool, Options{Image: e.image, Name: e.name("mcpchaos-twonets"), Labels: e.labels(),
		Networks: []*dockertest.Network{s.net, other}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = chaos.Close() })
	c, err := e.pool.Client.InspectContainer(chaos.Resource.Container.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []*dockertest.Network{s.net, other} {
		if _, ok := c.NetworkSettings.Networks[n.Network.Name]; !ok {
			t.Errorf("not on network %s: %v", n.Network.Name, c.NetworkSettings.Networks)
		}
	}
}
