package main

import (
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "devel"},
		{"module version", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: vcs("abc", "true")}, true, "v1.4.0"},
		{"clean tree", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123abcd", "false")}, true, "devel 0123abcd"},
		{"dirty tree", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123abcd", "true")}, true, "devel 0123abcd+dirty"},
		{"no vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel"},
	}
	for _, tt := range tests {
		if got := buildVersion(tt.bi, tt.ok); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestParseInterspersed: flags anywhere among the arguments, "--" ends
// them, and a flag's value is never taken for a positional argument.
func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		args       []string
		format     string
		check      bool
		positional []string
	}{
		{[]string{"a", "--format", "json", "b"}, "json", false, []string{"a", "b"}},
		{[]string{"--check", "a", "-format=md"}, "md", true, []string{"a"}},
		{[]string{"a", "--", "--format", "x"}, "text", false, []string{"a", "--format", "x"}},
		{[]string{"--format", "html", "--", "cmd", "--check"}, "html", false, []string{"cmd", "--check"}},
		{nil, "text", false, nil},
	}
	for _, tt := range tests {
		fs := newFlags("t", "", "", stdio{})
		format := fs.String("format", "text", "")
		check := fs.Bool("check", false, "")
		if err := parseInterspersed(fs, tt.args); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if *format != tt.format || *check != tt.check || len(fs.Args()) != len(tt.positional) {
			t.Errorf("%q: format %q check %t args %q", tt.args, *format, *check, fs.Args())
			continue
		}
		for i, a := range fs.Args() {
			if a != tt.positional[i] {
				t.Errorf("%q: args %q, want %q", tt.args, fs.Args(), tt.positional)
			}
		}
	}
}
