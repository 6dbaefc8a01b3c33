package agentsim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// schedScenario has one rule with the given fault on an HTTP upstream.
func schedScenario(name, kind string, params map[string]any) *scenario.Scenario {
	sc := &scenario.Scenario{Name: name, Agent: scenario.AgentSettings{Budget: 6, CallTimeout: 5 * time.Second},
		Upstreams: []config.Upstream{{UpstreamSpec: inject.UpstreamSpec{Name: "api", Protocol: inject.ProtocolHTTP}}}}
	if kind != "" {
		sc.Rules = []config.Rule{{Rule: rules.Rule{Name: "r", Upstream: "api", Fault: rules.FaultSpec{Kind: kind, Params: params}}}}
	}
	return sc
}

func TestExpectedLength(t *testing.T) {
	long, short := 30*time.Second, 5*time.Second
	tests := []struct {
		kind   string
		params map[string]any
		want   time.Duration
	}{
		{"timeout", nil, long},                                  // held: outcome unknown
		{"response_lost", map[string]any{"mode": "hang"}, long}, // committed, the server cannot tell
		{"unreachable", nil, short},                             // refused at once
		{"http_error", map[string]any{"status": 503}, short},    // the server knows it was not processed
		{"latency", map[string]any{"delay": "1s"}, short},       // delivered
		{"", nil, short},
	}
	for _, tt := range tests {
		if got := expectedLength(schedScenario(tt.kind, tt.kind, tt.params)); got != tt.want {
			t.Errorf("%s: expected length %v, want %v", tt.kind, got, tt.want)
		}
	}
	// A disabled rule holds nothing.
	sc := schedScenario("off", "timeout", nil)
	sc.Rules[0].Disabled = true
	if got := expectedLength(sc); got != short {
		t.Errorf("disabled hold: %v", got)
	}
}

// TestLongestFirst: the cells whose faults hold start first; among
// equals, matrix order; each cell keeps its index and seed.
func TestLongestFirst(t *testing.T) {
	scs := []*scenario.Scenario{schedScenario("a", "unreachable", nil), schedScenario("b", "timeout", nil),
		schedScenario("c", "", nil), schedScenario("d", "response_lost", map[string]any{"mode": "hang"})}
	for _, sc := range scs {
		sc.Agent.Personas, sc.Agent.Hosts = []string{scenario.DefaultPersona}, []string{"raw"}
	}
	cells, err := matrix(scs, RunOptions{Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := longestFirst(cells), []int{1, 3, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("start order %v, want %v", got, want)
	}
	for i, c := range cells {
		if c.index != i || c.seed != CellSeed(9, i) {
			t.Errorf("cell %d: index %d seed %d", i, c.index, c.seed)
		}
	}
}

func TestDefaultConcurrency(t *testing.T) {
	tests := []struct {
		avail uint64
		want  int
	}{{0, 1}, {100 << 20, 1}, {16 * CellMemory * raceMemoryFactor, 8}, {1 << 50, MaxConcurrency}}
	for _, tt := range tests {
		if got := concurrencyFor(tt.avail); got != tt.want {
			t.Errorf("concurrencyFor(%d MiB) = %d, want %d", tt.avail>>20, got, tt.want)
		}
	}
	if n := DefaultConcurrency(); n < 1 || n > MaxConcurrency {
		t.Errorf("DefaultConcurrency() = %d", n)
	}
	dir := t.TempDir()
	meminfo := filepath.Join(dir, "meminfo")
	if err := os.WriteFile(meminfo, []byte("MemTotal:       32000000 kB\nMemAvailable:    2097152 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := meminfoAvailable(meminfo); got != 2<<30 {
		t.Errorf("MemAvailable = %d", got)
	}
	limit := filepath.Join(dir, "memory.max")
	for content, want := range map[string]uint64{"max\n": 0, "1073741824\n": 1 << 30, "junk": 0} {
		if err := os.WriteFile(limit, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := cgroupLimit(limit); got != want {
			t.Errorf("memory.max %q = %d, want %d", content, got, want)
		}
	}
	if meminfoAvailable(filepath.Join(dir, "none")) != 0 || cgroupLimit(filepath.Join(dir, "none")) != 0 {
		t.Error("a missing file gives memory")
	}
}
