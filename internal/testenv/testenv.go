// Package testenv holds the rule every slow test follows: it may skip in
// -short mode on a developer's machine, never in CI, where a skipped test
// is an untested feature.
package testenv

import (
	"os"
	"testing"
)

// SkipShort skips t in -short mode, saying why, unless CI=true, where it
// fails instead: CI runs the whole suite.
func SkipShort(t testing.TB, why string) {
	t.Helper()
	if !testing.Short() {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("-short under CI=true would leave this test unrun (%s): CI runs without -short", why)
	}
	t.Skip(why + "; skipped in -short mode")
}
