package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/inject"
)

// TestFaultsCommand: `mcpchaos faults` prints every kind's
// specification: parameters with what they accept, and its outcomes.
func TestFaultsCommand(t *testing.T) {
	code, out, errOut := cli(t, "faults")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, k := range inject.Kinds() {
		if !strings.Contains(out, "\n"+k.Name+" (") {
			t.Errorf("no section for %s", k.Name)
		}
		for _, p := range inject.Params(k.New()) {
			if b := p.Bounds(); b != "" && !strings.Contains(out, b) {
				t.Errorf("%s.%s: what it accepts (%s) is not printed", k.Name, p.Name, b)
			}
		}
		for _, r := range k.OutcomeTable() {
			line := fmt.Sprintf("%s  ", inject.FormatParams(r.Params))
			if !strings.Contains(out, line) || !strings.Contains(out, string(r.Effect.Outcome)) {
				t.Errorf("%s: outcome row %q → %s not printed", k.Name, line, r.Effect.Outcome)
			}
		}
	}
	for _, want := range []string{"200-599", "0s-1h0m0s", "request, response, both", "rejected_before_commit", "committed_reply_lost"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}

	code, out, _ = cli(t, "faults", "reset")
	if code != 0 || strings.Contains(out, "\nlatency (") || !strings.Contains(out, "\nreset (") {
		t.Errorf("faults reset: exit %d, printed another kind or not reset:\n%s", code, out)
	}
	if code, _, errOut := cli(t, "faults", "meteor"); code != exitUsage || !strings.Contains(errOut, "not a fault kind") {
		t.Errorf("faults meteor: exit %d, %q", code, errOut)
	}
}

// TestFaultsDurationCapServe: serve's --max-fault-duration caps every
// duration parameter a fault asks for through the API, naming the cap.
func TestFaultsDurationCapServe(t *testing.T) {
	token := strings.Repeat("k", 32)
	t.Setenv("MCPCHAOS_TOKEN", token)
	s := startServe(t, "--api", "127.0.0.1:0", "--max-fault-duration", "1m")
	t.Setenv("MCPCHAOS_API", s.api)
	code, out, errOut := cli(t, "fault", "add", "slow", "--kind", "latency", "--param", "delay=2m")
	if code == 0 || !strings.Contains(out+errOut, "over the maximum of 1m0s") {
		t.Fatalf("delay over the cap: exit %d, %s%s", code, out, errOut)
	}
	if code, out, errOut := cli(t, "fault", "add", "slow", "--kind", "latency", "--param", "delay=30s"); code != 0 {
		t.Fatalf("delay under the cap: exit %d, %s%s", code, out, errOut)
	}
	if code, _, errOut := cli(t, "serve", "--max-fault-duration", "-1s", "--api", "off"); code != exitUsage || !strings.Contains(errOut, "max-fault-duration") {
		t.Fatalf("negative cap: exit %d, %s", code, errOut)
	}
}
