package agentsim

import (
	"bufio"
	"bytes"
	"cmp"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/inject"
)

// A run mostly waits: on call timeouts, on faults that hold a request
// open. Its wall time is then bounded below by its longest cell, and
// reaches that bound only when the long cells start first and enough
// cells run at once. The two rules here do that: longest-expected first,
// and as many at once as memory allows rather than as many as there are
// cores.

// expectedLength is how long a cell is expected to take, to order the
// matrix: budget × call_timeout when one of its rules injects a fault
// that leaves the server hanging (its declared outcome is unknown, or a
// reply lost after the commit that the server cannot tell from a hang),
// since each call may then wait out its timeout; else one call_timeout,
// a rough bound for a run whose calls are answered. The fault's
// declaration is inject's: no kind is named here.
func expectedLength(sc *scenario.Scenario) time.Duration {
	timeout := cmp.Or(sc.Agent.CallTimeout, scenario.DefaultCallTimeout)
	budget := cmp.Or(sc.Agent.Budget, scenario.DefaultBudget)
	protocols := make(map[string]string, len(sc.Upstreams))
	for _, u := range sc.Upstreams {
		protocols[u.Name] = u.Protocol
	}
	for _, r := range sc.Rules {
		if r.Disabled {
			continue
		}
		parsed, err := inject.ParseFault(r.Fault)
		f, ok := parsed.(inject.Fault)
		if err != nil || !ok {
			continue
		}
		// A rule for every upstream holds if it holds on any protocol.
		ps := []string{protocols[r.Upstream]}
		if p := ps[0]; p != inject.ProtocolHTTP && p != inject.ProtocolTCP {
			// Every upstream, a forward upstream or one of its
			// destinations: either protocol.
			ps = []string{inject.ProtocolHTTP, inject.ProtocolTCP}
		}
		for _, p := range ps {
			if leavesHanging(inject.EffectOf(f, p)) {
				return time.Duration(budget) * timeout
			}
		}
	}
	return timeout
}

// leavesHanging: the server waits for an answer that does not come.
func leavesHanging(e inject.Effect) bool {
	return e.Outcome == inject.OutcomeUnknown || (e.Outcome == inject.OutcomeCommittedReplyLost && !e.ServerKnows)
}

// longestFirst returns the order to start cells in: longest expected
// first, matrix order among equals. Cells keep their index and seed, and
// their report slot, so the order changes only the wall time.
func longestFirst(cells []cell) []int {
	order := make([]int, len(cells))
	lengths := make([]time.Duration, len(cells))
	for i := range cells {
		order[i] = i
		lengths[i] = expectedLength(cells[i].sc)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(lengths[b], lengths[a]) })
	return order
}

// Memory-bound concurrency: each cell runs a server process (for stdio
// servers; an HTTP server is the user's) and its proxies and agent here.
const (
	// CellMemory is what one cell is reckoned to need: a Go or Node MCP
	// server's resident set (10–60 MiB) plus this process's proxies,
	// buffers and transcript, rounded up.
	CellMemory = 128 << 20
	// MaxConcurrency caps the default, so that a large machine does not
	// start hundreds of server processes at once.
	MaxConcurrency = 64
	// fallbackMemory is assumed when the available memory is unknown
	// (not Linux): enough for 8 cells.
	fallbackMemory = 8 * CellMemory
)

// DefaultConcurrency is how many cells run at once when the caller does
// not say: half the available memory divided by [CellMemory], at least
// 1 and at most [MaxConcurrency]. Half, because the server processes
// are not the only thing on the machine. The available memory is
// MemAvailable of /proc/meminfo, lowered to the cgroup's memory.max
// when that is smaller (a container).
func DefaultConcurrency() int {
	return concurrencyFor(availableMemory())
}

func concurrencyFor(avail uint64) int {
	return int(min(max(avail/2/(CellMemory*raceMemoryFactor), 1), MaxConcurrency))
}

func availableMemory() uint64 {
	avail := meminfoAvailable("/proc/meminfo")
	if limit := cgroupLimit("/sys/fs/cgroup/memory.max"); limit > 0 && (avail == 0 || limit < avail) {
		avail = limit
	}
	if avail == 0 {
		return fallbackMemory
	}
	return avail
}

// meminfoAvailable reads MemAvailable (kB) from a meminfo file; 0 when
// it cannot.
func meminfoAvailable(path string) uint64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// cgroupLimit reads a cgroup v2 memory.max; 0 when there is none ("max"
// or no file).
func cgroupLimit(path string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 64 {
		return 0
	}
	n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// ruleFaults lists the kinds of fault a scenario's enabled rules inject,
// each once, in rule order: the report's FAULT column.
func ruleFaults(sc *scenario.Scenario) []string {
	var out []string
	for _, r := range sc.Rules {
		if !r.Disabled && r.Fault.Kind != "" && !slices.Contains(out, r.Fault.Kind) {
			out = append(out, r.Fault.Kind)
		}
	}
	return out
}
