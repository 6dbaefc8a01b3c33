package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunCheckDemo checks that every shipped demo scenario fits its
// server: run --check exits 0 with one ok line each.
func TestRunCheckDemo(t *testing.T) {
	t.Setenv(asMainEnv, "1") // {{ mcpchaos }} is this test binary
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"run", "--check", "../../examples/demo"}, stdio{out: &stdout, err: &stderr})
	oks := 0
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "ok   ") {
			oks++
		}
	}
	if code != exitOK || oks != 12 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}

// TestScenarioErrorExitCodes checks that a scenario that does not fit its
// server exits 2 (not 1 for findings, not 3 for a failed run), with and
// without --check, and that a step invalid on purpose passes the check.
func TestScenarioErrorExitCodes(t *testing.T) {
	t.Setenv(asMainEnv, "1")
	const head = `server:
  command: ["{{ mcpchaos }}", "demo-server", "--variant", "careless"]
  env: {CARRIER_URL: '{{ upstream "carrier" }}'}
upstreams: [{name: carrier, protocol: http, target: builtin:carrier}]
rules:
  - {name: down, upstream: carrier, fault: {kind: http_error, status: 503}}
agent: {hosts: [swallow], budget: 4}
`
	for _, tc := range []struct {
		name, steps string
		check, run  int
	}{
		{"unknown tool", "steps: [{tool: create_shipments, args: {order_id: A-1, address: x}}]\n", exitUsage, exitUsage},
		{"wrong type", "steps: [{tool: create_shipment, args: {order_id: 1, address: x}}]\n", exitUsage, exitUsage},
		{"missing required", "steps: [{tool: create_shipment, args: {order_id: A-1}}]\n", exitUsage, exitUsage},
		{"unknown followup", "steps: [{tool: create_shipment, args: {order_id: A-1, address: x}}]\nfollowups: {find_shipment: {order_id: A-1}}\n", exitUsage, exitUsage},
		// The careless server under a 503 gets findings: exit 1 once the
		// scenario fits.
		{"invalid on purpose", "steps: [{tool: create_shipment, args: {order_id: A-1, address: x}}, {tool: create_shipment, args: {order_id: 1}, invalid: true}]\n", exitOK, exitFindings},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(path, []byte(head+tc.steps), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"run", "--check", path}, {"run", "--format", "json", "--out", filepath.Join(t.TempDir(), "r.json"), path}} {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				var stderr bytes.Buffer
				code := run(ctx, args, stdio{out: &bytes.Buffer{}, err: &stderr})
				cancel()
				want := tc.run
				if args[1] == "--check" {
					want = tc.check
				}
				if code != want {
					t.Errorf("%v: exit %d, want %d: %s", args[:2], code, want, stderr.String())
				}
				if want == exitUsage && !strings.Contains(stderr.String(), path+":") {
					t.Errorf("%v: stderr does not name the file: %s", args[:2], stderr.String())
				}
			}
		})
	}
}
