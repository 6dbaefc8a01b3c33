package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// runLabel is set on every container, network and image the tests create,
// to the run's id: the end of TestMain lists what still carries it.
const runLabel = "org.mcpchaos.test.run"

// env is the Docker engine and the image under test, set once by TestMain
// before any test runs and read-only afterwards.
var env *testEnv

// testEnv is what every container test shares.
type testEnv struct {
	// skip, when set, is why the Docker tests skip (no engine, CI unset).
	skip  string
	pool  *dockertest.Pool
	runID string
	// image is the image built from this checkout ("mcpchaos:it-RUNID").
	image string

	stackOnce sync.Once
	stack     *demoStack
	stackErr  error
}

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	if os.Getenv(killedHelperEnv) != "" {
		// TestSweepAfterKilledRun's subprocess: it uses the parent's
		// image, and leaves things behind on purpose.
		pool, err := dockertest.NewPool("")
		if err != nil {
			fmt.Fprintf(os.Stderr, "integration: %v\n", err)
			return 1
		}
		env = &testEnv{pool: pool, image: os.Getenv(ImageEnv)}
		return m.Run()
	}
	e, err := newTestEnv()
	switch {
	case errors.Is(err, errNoDocker) && os.Getenv("CI") != "true":
		fmt.Fprintf(os.Stderr, "integration: skipping the container tests: %v\n", err)
		env = &testEnv{skip: err.Error() + " (set CI=true to make this a failure)"}
		return m.Run()
	case err != nil:
		fmt.Fprintf(os.Stderr, "integration: %v\n", err)
		if errors.Is(err, errNoDocker) {
			fmt.Fprintln(os.Stderr, "integration: CI=true: a missing Docker engine is a failure, not a skip")
		}
		return 1
	}
	env = e
	// Options.Image and the example's server default to it.
	if err := os.Setenv(ImageEnv, e.image); err != nil {
		fmt.Fprintf(os.Stderr, "integration: %v\n", err)
		return 1
	}
	start := time.Now()
	code := m.Run()
	if err := e.teardown(); err != nil {
		fmt.Fprintf(os.Stderr, "integration: %v\n", err)
		code = 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "integration: tests took %v\n", time.Since(start).Round(time.Millisecond))
	}
	return code
}

// errNoDocker is wrapped when no Docker engine answers.
var errNoDocker = errors.New("no Docker engine")

// newTestEnv connects to the engine and builds the image of this checkout.
func newTestEnv() (*testEnv, error) {
	pool, err := dockertest.NewPool("")
	if err == nil {
		err = pool.Client.Ping()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoDocker, err)
	}
	// Every readiness wait (pool.Retry) gives up after this long.
	pool.MaxWait = time.Minute
	e := &testEnv{pool: pool, runID: randomHex(4)}
	e.image = "mcpchaos:it-" + e.runID
	if err := e.buildImage(); err != nil {
		return nil, err
	}
	return e, nil
}

// labels returns the labels every test resource carries.
func (e *testEnv) labels() map[string]string { return map[string]string{runLabel: e.runID} }

// need skips t when there is no Docker engine (and CI is not set).
func need(t *testing.T) *testEnv {
	t.Helper()
	if env == nil || env.skip != "" {
		reason := "TestMain did not run"
		if env != nil {
			reason = env.skip
		}
		t.Skip(reason)
	}
	return env
}

// buildImage builds the static binary and the Dockerfile of this checkout
// into e.image, exactly as `make image` does but under a tag of its own,
// so that `go test ./integration/...` needs nothing but an engine and
// tests the code it was run on.
func (e *testEnv) buildImage() error {
	root, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mcpchaos-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-ldflags", "-s -w",
		"-o", filepath.Join(dir, "bin", "docker", "mcpchaos"), "./cmd/mcpchaos")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the static binary: %w\n%s", err, out)
	}
	dockerfile, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), dockerfile, 0o644); err != nil {
		return err
	}
	var out bytes.Buffer
	err = e.pool.Client.BuildImage(dc.BuildImageOptions{
		Name: e.image, ContextDir: dir, Dockerfile: "Dockerfile", Labels: e.labels(),
		RmTmpContainer: true, ForceRmTmpContainer: true, OutputStream: &out, Context: ctx,
	})
	if err != nil {
		return fmt.Errorf("building image %s: %w\n%s", e.image, err, out.String())
	}
	return nil
}

// teardown removes the shared containers and the image, then fails the
// run if anything labelled with its id is left.
func (e *testEnv) teardown() error {
	var errs []error
	if e.stack != nil {
		errs = append(errs, e.stack.close())
	}
	// Containers first: the image cannot go while one uses it.
	errs = append(errs, e.leftovers(false))
	if err := e.pool.Client.RemoveImageExtended(e.image, dc.RemoveImageOptions{Force: true}); err != nil {
		errs = append(errs, fmt.Errorf("removing image %s: %w", e.image, err))
	}
	errs = append(errs, e.leftovers(true))
	return errors.Join(errs...)
}

// leftovers lists the containers, networks and volumes still labelled
// with the run's id (and the containers of its image, labelled or not:
// the example test starts its own the way a user would), and with images
// the images too; it removes them and returns an error naming them: a test
// that leaks is a failure even when it was cleaned up here.
func (e *testEnv) leftovers(images bool) error {
	label := runLabel + "=" + e.runID
	var left []string
	seen := map[string]bool{}
	for _, f := range []map[string][]string{{"label": {label}}, {"ancestor": {e.image}}} {
		cs, err := e.pool.Client.ListContainers(dc.ListContainersOptions{All: true, Filters: f})
		if err != nil {
			return fmt.Errorf("listing containers: %w", err)
		}
		for _, c := range cs {
			if seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			left = append(left, "container "+strings.Join(c.Names, ","))
			_ = e.pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: c.ID, Force: true, RemoveVolumes: true})
		}
	}
	ns, err := e.pool.Client.FilteredListNetworks(dc.NetworkFilterOpts{"label": {label: true}})
	if err != nil {
		return fmt.Errorf("listing networks: %w", err)
	}
	for _, n := range ns {
		left = append(left, "network "+n.Name)
		_ = e.pool.Client.RemoveNetwork(n.ID)
	}
	vs, err := e.pool.Client.ListVolumes(dc.ListVolumesOptions{Filters: map[string][]string{"label": {label}}})
	if err != nil {
		return fmt.Errorf("listing volumes: %w", err)
	}
	for _, v := range vs {
		left = append(left, "volume "+v.Name)
		_ = e.pool.Client.RemoveVolumeWithOptions(dc.RemoveVolumeOptions{Name: v.Name, Force: true})
	}
	if images {
		is, err := e.pool.Client.ListImages(dc.ListImagesOptions{All: true, Filters: map[string][]string{"label": {label}}})
		if err != nil {
			return fmt.Errorf("listing images: %w", err)
		}
		for _, i := range is {
			left = append(left, "image "+strings.Join(i.RepoTags, ",")+" "+i.ID)
			_ = e.pool.Client.RemoveImageExtended(i.ID, dc.RemoveImageOptions{Force: true})
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("the tests left behind (now removed): %s", strings.Join(left, "; "))
	}
	return nil
}
