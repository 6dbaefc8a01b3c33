package agentsim

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
)

// TestStartServerWaitsForASlot: with every start slot taken, a server
// does not start; a run cancelled meanwhile gives up waiting, and the
// slot stays with its holder.
func TestStartServerWaitsForASlot(t *testing.T) {
	slots := make(chan struct{}, 1)
	slots <- struct{}{} // another cell's server is starting
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	spec := driver.ServerSpec{Command: []string{filepath.Join(t.TempDir(), "never-started")}}
	sess, err := startServer(ctx, slots, spec, driver.Options{})
	if sess != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("startServer = %v, %v; want context.Canceled", sess, err)
	}
	var se *driver.StartError
	if errors.As(err, &se) {
		t.Errorf("the server was started while no slot was free: %v", err)
	}
	if len(slots) != 1 {
		t.Errorf("%d slots taken, want the holder's 1", len(slots))
	}
}

// TestStartServerFreesItsSlot: the slot is given back once the server has
// started, and when it failed to.
func TestStartServerFreesItsSlot(t *testing.T) {
	slots := make(chan struct{}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	sess, err := startServer(ctx, slots, driver.ServerSpec{Transport: simtest.InMemory(t)}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
	if len(slots) != 0 {
		t.Errorf("after a start: %d slots taken, want 0", len(slots))
	}

	spec := driver.ServerSpec{Command: []string{filepath.Join(t.TempDir(), "missing")}}
	var se *driver.StartError
	if _, err := startServer(ctx, slots, spec, driver.Options{}); !errors.As(err, &se) {
		t.Fatalf("starting a missing program: %v, want a StartError", err)
	}
	if len(slots) != 0 {
		t.Errorf("after a failed start: %d slots taken, want 0", len(slots))
	}
}

// TestStartSlots: as many servers start at once as this process may use
// CPUs.
func TestStartSlots(t *testing.T) {
	if got, want := startSlots(), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("startSlots() = %d, want GOMAXPROCS %d", got, want)
	}
}
