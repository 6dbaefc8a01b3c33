package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// demoRun is the part of the JSON report the predictions are about.
type demoRun struct {
	Scenario  string `json:"scenario"`
	Persona   string `json:"persona"`
	Host      string `json:"host"`
	Converged bool   `json:"converged"`
	Budget    int    `json:"budget"`
	Error     string `json:"error"`
	Calls     []struct {
		Tool    string `json:"tool"`
		Channel string `json:"channel"`
	} `json:"calls"`
	Total struct {
		Intended  int `json:"intended"`
		Committed int `json:"committed"`
	} `json:"side_effects_total"`
	Findings []struct {
		ID       string `json:"id"`
		Severity string `json:"severity"`
	} `json:"findings"`
}

func runDemoJSON(t *testing.T, args ...string) []byte {
	t.Helper()
	t.Setenv(asMainEnv, "1") // the demo server is this test binary
	out := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	code := run(ctx, append([]string{"demo", "--format", "json", "--out", out}, args...), stdio{out: io.Discard, err: &stderr})
	if code != exitOK {
		t.Fatalf("demo exited %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDemoPredictions checks the demo's numbers against what the guidance
// mcpchaos is built on predicts.
func TestDemoPredictions(t *testing.T) {
	var report struct {
		Runs []demoRun `json:"runs"`
	}
	if err := json.Unmarshal(runDemoJSON(t, "--seed", "7"), &report); err != nil {
		t.Fatal(err)
	}
	if len(report.Runs) != 48 {
		t.Fatalf("%d runs, want 48 (4 faults × 3 hosts × (careless + 2×terse + careful))", len(report.Runs))
	}
	ids := map[string]map[string]bool{} // variant → finding IDs
	for _, r := range report.Runs {
		if r.Error != "" {
			t.Errorf("%s/%s/%s failed: %s", r.Scenario, r.Persona, r.Host, r.Error)
			continue
		}
		variant, fault, _ := strings.Cut(r.Scenario, " / ")
		if ids[variant] == nil {
			ids[variant] = map[string]bool{}
		}
		for _, f := range r.Findings {
			ids[variant][f.ID] = true
		}
		name := r.Scenario + " · " + r.Persona + " · " + r.Host
		persistent := fault != "unreachable" // the outage of the demo lasts one attempt
		switch {
		case variant == "careless" && r.Host == "swallow" && persistent && fault != "partial_write":
			if r.Converged || len(r.Calls) != r.Budget {
				t.Errorf("%s: %d calls, converged %v; want the budget (%d) spent", name, len(r.Calls), r.Converged, r.Budget)
			}
		case variant == "terse" && r.Persona == "stubborn" && persistent:
			if r.Converged || len(r.Calls) != r.Budget {
				t.Errorf("%s: %d calls, converged %v; want the budget spent", name, len(r.Calls), r.Converged)
			}
		case variant == "careful":
			if !r.Converged || len(r.Calls) > 2 || r.Total.Committed != 1 {
				t.Errorf("%s: %d calls, converged %v, %d committed; want ≤2 calls and exactly 1", name, len(r.Calls), r.Converged, r.Total.Committed)
			}
			for _, f := range r.Findings {
				if f.Severity == "error" {
					t.Errorf("%s: error finding %s", name, f.ID)
				}
			}
		}
		if variant == "careless" && fault == "response_lost" && r.Total.Committed <= 1 {
			t.Errorf("%s: %d committed; a lost reply retried must duplicate", name, r.Total.Committed)
		}
		if variant == "terse" {
			for _, f := range r.Findings {
				if f.ID == "MC001" {
					t.Errorf("%s: terse answers in the right channel, yet MC001", name)
				}
			}
		}
	}
	for variant, want := range map[string][]string{
		"careless": {"MC001", "MC005", "MC006", "MC007"},
		"terse":    {"MC005", "MC006"},
	} {
		for _, id := range want {
			if !ids[variant][id] {
				t.Errorf("%s server never tripped %s (tripped %v)", variant, id, ids[variant])
			}
		}
	}
}

// volatile matches what legitimately differs between two runs: times and
// durations, and nothing else. The loopback ports the OS hands out (the
// careless server quotes its upstream's address) are not masked here:
// the report names them by placeholder, and these tests prove it.
var volatile = regexp.MustCompile(`"(started_at|duration_ms|elapsed_ms|held_ms)": [^,\n]+`)

// anyPort is a loopback address with its port, which a report must not
// show: every port of a demo run is picked by the OS.
var anyPort = regexp.MustCompile(`127\.0\.0\.1:\d`)

// TestDemoReplays checks that the same seed gives a byte-identical JSON
// report apart from times and durations, although every run's proxies
// and carrier listen on ports the OS picks.
func TestDemoReplays(t *testing.T) {
	args := []string{"--seed", "42"} // the whole default matrix
	rawA, rawB := runDemoJSON(t, args...), runDemoJSON(t, args...)
	a, b := volatile.ReplaceAll(rawA, nil), volatile.ReplaceAll(rawB, nil)
	if !bytes.Equal(a, b) {
		t.Errorf("two runs with seed 42 differ (-first +second):\n%s",
			cmp.Diff(strings.Split(string(a), "\n"), strings.Split(string(b), "\n")))
	}
	// The careless server quotes its carrier's URL and its own end of the
	// connection: the report shows placeholders, never a port.
	if !bytes.Contains(rawA, []byte(`{{ upstream \"carrier\" }}`)) || anyPort.Match(rawA) {
		t.Errorf("the report does not name the proxy by placeholder: %q", anyPort.Find(rawA))
	}
}

// TestRunExamplesMatchesDemo checks that the shipped example files give
// the demo's report: the demo is nothing but those scenarios.
func TestRunExamplesMatchesDemo(t *testing.T) {
	demoJSON := volatile.ReplaceAll(runDemoJSON(t, "--seed", "5", "--variant", "careful", "--fault", "response_lost,unreachable"), nil)

	out := filepath.Join(t.TempDir(), "run.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	code := run(ctx, []string{"run", "--format", "json", "--out", out, "--seed", "5",
		"../../examples/demo/careful-response_lost.yaml", "../../examples/demo/careful-unreachable.yaml"},
		stdio{out: io.Discard, err: &stderr})
	if code != exitOK {
		t.Fatalf("run exited %d: %s", code, stderr.String())
	}
	runJSON, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if runJSON = volatile.ReplaceAll(runJSON, nil); !bytes.Equal(demoJSON, runJSON) {
		t.Errorf("mcpchaos run examples/demo/… differs from mcpchaos demo:\n%s\n---\n%s", demoJSON, runJSON)
	}
}

// TestRunSharded checks that the shards of a matrix, run apart, are the
// whole matrix's runs: same cells, same seeds, same results.
func TestRunSharded(t *testing.T) {
	t.Setenv(asMainEnv, "1")
	runJSON := func(extra ...string) []json.RawMessage {
		t.Helper()
		out := filepath.Join(t.TempDir(), "r.json")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var stderr bytes.Buffer
		args := append([]string{"run", "--format", "json", "--out", out, "--seed", "3", "--fail-on", "never"}, extra...)
		args = append(args, "../../examples/demo/careful-unreachable.yaml", "../../examples/demo/terse-unreachable.yaml")
		if code := run(ctx, args, stdio{out: io.Discard, err: &stderr}); code != exitOK {
			t.Fatalf("run %v exited %d: %s", extra, code, stderr.String())
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Runs []json.RawMessage `json:"runs"`
		}
		masked := volatile.ReplaceAll(data, []byte(`"masked": 0`))
		if err := json.Unmarshal(masked, &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Runs
	}
	whole := runJSON()
	first, second := runJSON("--shard", "1/2"), runJSON("--shard", "2/2")
	if len(whole) != 9 || len(first)+len(second) != len(whole) {
		t.Fatalf("runs: whole %d, shards %d + %d", len(whole), len(first), len(second))
	}
	for i, r := range whole {
		shard, j := first, i/2
		if i%2 == 1 {
			shard = second
		}
		if !bytes.Equal(r, shard[j]) {
			t.Errorf("run %d differs when sharded:\n%s\n---\n%s", i, r, shard[j])
		}
	}
}
