package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise it comes from the build info (see buildVersion).
var version = ""

func runVersion(_ context.Context, args []string, io stdio) int {
	fs := newFlags("version", "", "Print the version: the release, or the module version, or the commit it was built from (+dirty when the tree had changes).", io)
	if done, code := parse(fs, args, io); done {
		return code
	}
	v := version
	if v == "" {
		bi, ok := debug.ReadBuildInfo()
		v = buildVersion(bi, ok)
	}
	fmt.Fprintf(io.out, "mcpchaos %s\n", v)
	return exitOK
}

// buildVersion is the version the build info gives: the module's
// version when built as a module (go install ...@v1.2.3), else the VCS
// revision (with +dirty when the tree had uncommitted changes), else
// "devel".
func buildVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel " + rev + dirty
}
