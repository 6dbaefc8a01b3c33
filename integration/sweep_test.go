package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// killedHelperEnv makes TestKilledRunHelper do its work, and TestMain
// skip the image build: set only on TestSweepAfterKilledRun's subprocess.
const killedHelperEnv = "MCPCHAOS_IT_KILLED_HELPER"

// killedTimeout is the subprocess's -test.timeout: shorter than its test,
// which waits for ever.
const killedTimeout = "3s"

// TestKilledRunHelper is the test run that gets killed: it makes a
// network, a volume and an mcpchaos container with the default labels,
// then waits until `-timeout` ends the process. In a normal run it does
// nothing.
func TestKilledRunHelper(t *testing.T) {
	if os.Getenv(killedHelperEnv) == "" {
		return // only TestSweepAfterKilledRun runs it, as a subprocess
	}
	pool := env.pool
	network := NetworkT(t, pool)
	if _, err := pool.Client.CreateVolume(dc.CreateVolumeOptions{Name: "mcpchaos-killed-" + RunID(), Labels: Labels()}); err != nil {
		t.Fatal(err)
	}
	StartT(t, pool, Options{Image: env.image, Networks: []*dockertest.Network{network}})
	fmt.Println("helper: started; waiting to be killed")
	<-t.Context().Done()
}

// TestSweepAfterKilledRun kills a test run by its -timeout (the test
// binary run as `go test -run TestKilledRunHelper -timeout 3s` runs it)
// while it holds labelled things, then checks that Sweep removes every
// one of them, and nothing a live process owns.
func TestSweepAfterKilledRun(t *testing.T) {
	e := need(t)
	t.Parallel()
	run := "killed-" + e.runID + "-" + randomHex(3)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKilledRunHelper$", "-test.timeout="+killedTimeout, "-test.v")
	cmd.Env = append(os.Environ(), killedHelperEnv+"=1", RunEnv+"="+run, ImageEnv+"="+e.image)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "test timed out after "+killedTimeout) {
		t.Fatalf("the helper run was not killed by its timeout: %v\n%s", err, out)
	}
	// A live process's things must survive the sweep: this test's own.
	mine := NetworkT(t, e.pool)

	before := labelled(t, e.pool, LabelRun+"="+run)
	t.Logf("the killed run left: %v", before)
	if len(before) == 0 {
		t.Fatalf("the killed run left nothing: the test proves nothing\n%s", out)
	}
	removed, err := Sweep(ctx, e.pool)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Sweep removed: %v", removed)
	if after := labelled(t, e.pool, LabelRun+"="+run); len(after) > 0 {
		t.Errorf("after Sweep the killed run still has: %v", after)
	}
	if _, err := e.pool.Client.NetworkInfo(mine.Network.ID); err != nil {
		t.Errorf("Sweep removed a live process's network %s: %v", mine.Network.Name, err)
	}
}

// labelled lists the containers, networks and volumes carrying label
// ("key=value").
func labelled(t *testing.T, pool *dockertest.Pool, label string) []string {
	t.Helper()
	var out []string
	cs, err := pool.Client.ListContainers(dc.ListContainersOptions{All: true, Filters: map[string][]string{"label": {label}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		out = append(out, "container "+strings.Join(c.Names, ","))
	}
	ns, err := pool.Client.FilteredListNetworks(dc.NetworkFilterOpts{"label": {label: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range ns {
		out = append(out, "network "+n.Name)
	}
	vs, err := pool.Client.ListVolumes(dc.ListVolumesOptions{Filters: map[string][]string{"label": {label}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		out = append(out, "volume "+v.Name)
	}
	return out
}
