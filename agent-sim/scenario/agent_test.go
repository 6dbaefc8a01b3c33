package scenario

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
)

// TestAgentCrashAndLateSettings: after_crash and late_grace parse, take
// their defaults, and a bad value is an error naming the field.
func TestAgentCrashAndLateSettings(t *testing.T) {
	tests := []struct {
		name, agent string
		wantErr     string // substring; empty: parses
		grace       time.Duration
		afterCrash  string // of host h, normalized
	}{
		{"defaults", "", "", 10 * time.Second, persona.CrashReconnectOnce},
		{"grace follows call_timeout", "  call_timeout: 2s\n", "", 4 * time.Second, persona.CrashReconnectOnce},
		{"grace capped", "  call_timeout: 1m\n", "", MaxLateGrace, persona.CrashReconnectOnce},
		{"grace off, stop", "  late_grace: 0s\n  host_profiles:\n    - {name: h, after_crash: stop}\n", "", 0, persona.CrashStop},
		{"negative grace", "  late_grace: -1s\n", "late_grace", 0, ""},
		{"unknown after_crash", "  host_profiles:\n    - {name: h, after_crash: restart_forever}\n", "after_crash", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hosts := "  hosts: [h]\n"
			if !strings.Contains(tc.agent, "host_profiles") {
				hosts += "  host_profiles:\n    - {name: h}\n"
			}
			src := fmt.Sprintf("name: s\nserver: {command: [srv]}\nagent:\n%s%ssteps:\n  - tool: t\n", hosts, tc.agent)
			sc, err := Parse("s.yaml", []byte(src))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.Agent.LateGrace != tc.grace {
				t.Errorf("late_grace %s, want %s", sc.Agent.LateGrace, tc.grace)
			}
			h, err := persona.HostByName("h", sc.Agent.HostProfiles)
			if err != nil {
				t.Fatal(err)
			}
			if h.AfterCrash != tc.afterCrash || h.Reconnects() != map[string]int{persona.CrashStop: 0, persona.CrashReconnectOnce: 1}[tc.afterCrash] {
				t.Errorf("after_crash %q (%d reconnects), want %q", h.AfterCrash, h.Reconnects(), tc.afterCrash)
			}
		})
	}
}
