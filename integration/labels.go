package integration

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// Labels set on every container and network this package creates, so
// that what a killed test run left behind can be found and removed
// ([Sweep]).
const (
	// LabelProject marks everything the package created ("true").
	LabelProject = "org.mcpchaos.integration"
	// LabelRun is the test run: $MCPCHAOS_INTEGRATION_RUN when set (a CI
	// job's id), else random, one per process.
	LabelRun = "org.mcpchaos.integration.run"
	// LabelOwner is "HOSTNAME/PID" of the process that created it: Sweep
	// leaves alone what a live process on this machine still uses.
	LabelOwner = "org.mcpchaos.integration.owner"
	// RunEnv names the variable that sets LabelRun's value.
	RunEnv = "MCPCHAOS_INTEGRATION_RUN"
)

// processLabels is computed once per process: the run id must be the
// same on every container a test binary starts. It is never changed
// afterwards.
var processLabels = sync.OnceValue(func() map[string]string {
	run := os.Getenv(RunEnv)
	if run == "" {
		run = randomHex(6)
	}
	host, _ := os.Hostname()
	return map[string]string{LabelProject: "true", LabelRun: run, LabelOwner: host + "/" + strconv.Itoa(os.Getpid())}
})

// Labels returns the labels [Start] and [NewNetwork] set by default, as a
// new map: give them to the suite's own containers and networks
// (dockertest.RunOptions.Labels) so that [Sweep] removes those too.
func Labels() map[string]string { return maps.Clone(processLabels()) }

// RunID returns this process's run id (the value of LabelRun).
func RunID() string { return processLabels()[LabelRun] }

// withLabels returns the default labels with extra's on top.
func withLabels(extra map[string]string) map[string]string {
	l := Labels()
	maps.Copy(l, extra)
	return l
}

// Sweep removes the containers (with their anonymous volumes), networks
// and volumes labelled LabelProject that no live process on this machine
// owns: what test runs that were killed (a `go test -timeout`, a
// cancelled CI job) left behind. It returns what it removed ("container
// NAME", "network NAME", "volume NAME").
//
// Things created by a live process on this machine are kept, so Sweep
// may run while other tests run. Things owned by another machine (a
// remote engine shared by several) cannot be checked and are removed: do
// not sweep a shared engine while another machine's tests use it.
func Sweep(ctx context.Context, pool *dockertest.Pool) ([]string, error) {
	if pool == nil || pool.Client == nil {
		return nil, errors.New("integration: no dockertest pool")
	}
	host, _ := os.Hostname()
	stale := func(labels map[string]string) bool {
		h, p, ok := strings.Cut(labels[LabelOwner], "/")
		if !ok || h != host {
			return true
		}
		pid, err := strconv.Atoi(p)
		return err != nil || !processAlive(pid)
	}
	filter := map[string][]string{"label": {LabelProject}}
	var removed []string
	var errs []error
	cs, err := pool.Client.ListContainers(dc.ListContainersOptions{All: true, Filters: filter, Context: ctx})
	if err != nil {
		return nil, fmt.Errorf("integration: sweep: listing containers: %w", err)
	}
	for _, c := range cs {
		if !stale(c.Labels) {
			continue
		}
		err := pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: c.ID, Force: true, RemoveVolumes: true, Context: ctx})
		if err != nil && !isNoSuchContainer(err) {
			errs = append(errs, fmt.Errorf("removing container %s: %w", strings.Join(c.Names, ","), err))
			continue
		}
		removed = append(removed, "container "+strings.TrimPrefix(strings.Join(c.Names, ","), "/"))
	}
	ns, err := pool.Client.FilteredListNetworks(dc.NetworkFilterOpts{"label": {LabelProject: true}})
	if err != nil {
		return removed, fmt.Errorf("integration: sweep: listing networks: %w", err)
	}
	for _, n := range ns {
		if !stale(n.Labels) {
			continue
		}
		if err := pool.Client.RemoveNetwork(n.ID); err != nil {
			errs = append(errs, fmt.Errorf("removing network %s: %w", n.Name, err))
			continue
		}
		removed = append(removed, "network "+n.Name)
	}
	vs, err := pool.Client.ListVolumes(dc.ListVolumesOptions{Filters: filter, Context: ctx})
	if err != nil {
		return removed, fmt.Errorf("integration: sweep: listing volumes: %w", err)
	}
	for _, v := range vs {
		if !stale(v.Labels) {
			continue
		}
		if err := pool.Client.RemoveVolumeWithOptions(dc.RemoveVolumeOptions{Context: ctx, Name: v.Name, Force: true}); err != nil {
			errs = append(errs, fmt.Errorf("removing volume %s: %w", v.Name, err))
			continue
		}
		removed = append(removed, "volume "+v.Name)
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("integration: sweep: %w", errors.Join(errs...))
	}
	return removed, nil
}

func isNoSuchContainer(err error) bool {
	var nsc *dc.NoSuchContainer
	return errors.As(err, &nsc)
}
