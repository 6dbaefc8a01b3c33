package arch

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcpchaos/mcpchaos/"

// allowed lists, for each package, the project packages it may import.
// A package missing here may import nothing of the project.
var allowed = map[string][]string{
	"rules": {},
	// internal/bufpool (the proxies' copy buffers) imports nothing.
	"inject": {"rules", "internal/bufpool"},
	"config": {"rules", "inject"},
	// The simulator: the reader stands alone; the call record
	// (transcript) is under the driver, the personas and the judge, so
	// that the judge grades calls recorded anywhere without the driver;
	// the scenario names their settings; the runner is the root.
	"agent-sim/reader":        {},
	"agent-sim/reader/corpus": {},
	// The MCP front: wrap, the HTTP front, the recorder.
	"front": {"rules", "inject", "agent-sim/reader", "agent-sim/transcript", "internal/bufpool"},
	// Live verdicts: the judge on what the front recorded.
	"front/grade":          {"inject", "front", "agent-sim/transcript", "agent-sim/judge"},
	"agent-sim/transcript": {"inject", "agent-sim/reader"},
	"agent-sim/driver":     {"agent-sim/transcript"},
	"agent-sim/persona":    {"agent-sim/reader", "agent-sim/transcript"},
	"agent-sim/judge":      {"inject", "agent-sim/reader", "agent-sim/transcript"},
	"agent-sim/report":     {"agent-sim/transcript", "agent-sim/judge"},
	"agent-sim/scenario": {"rules", "inject", "config", "agent-sim/transcript", "agent-sim/driver", "agent-sim/persona",
		"agent-sim/judge"},
	"agent-sim": {"rules", "inject", "config", "agent-sim/reader", "agent-sim/transcript", "agent-sim/driver",
		"agent-sim/persona", "agent-sim/judge", "agent-sim/scenario", "agent-sim/report"},
	// Test fixtures of the simulator's packages, imported by tests only.
	"agent-sim/internal/simtest": {"inject", "agent-sim/transcript", "agent-sim/persona"},
	"api": {"rules", "inject", "config", "agent-sim", "agent-sim/driver", "agent-sim/persona", "agent-sim/scenario", "agent-sim/transcript",
		"agent-sim/report", "examples", "front", "front/grade"},
	"cmd/mcpchaos": {"rules", "inject", "config", "agent-sim", "agent-sim/transcript", "agent-sim/judge",
		"agent-sim/scenario", "agent-sim/report", "api", "demo", "examples", "front", "front/grade"},
	"integration":           {"agent-sim/judge", "agent-sim/report", "agent-sim/scenario", "api"},
	"integration/cmd/sweep": {"integration"},
	"demo":                  {},
	"examples":              {},
}

// TestDependenciesPointOneWay fails when a package imports a project
// package it should not (the non-test imports of every package, as the go
// command sees them).
func TestDependenciesPointOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p.ImportPath, module)
		if strings.HasPrefix(name, "bench/") || strings.HasPrefix(name, "internal/") || strings.Contains(name, "testdata") {
			continue // tools and test support, outside the product's layers
		}
		may, known := allowed[name]
		if !known {
			t.Errorf("package %s is not in the layer map: add it to allowed and docs/architecture.md", name)
			continue
		}
		checked++
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if ok && !slices.Contains(may, dep) {
				t.Errorf("%s imports %s, against the layering", name, dep)
			}
		}
	}
	if checked < len(allowed) {
		t.Errorf("checked %d packages, want %d: is go list seeing the module?", checked, len(allowed))
	}
}
