// Package browsertest starts the headless Chromium that the project's
// browser tests drive (the HTML report, the dashboard), the same way in
// every package.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Path finds a Chromium to drive: $MCPCHAOS_CHROMIUM, else the usual names
// on PATH. Without one the test skips on a developer's machine, but fails
// when CI=true: a skipped browser test would silently stop checking what
// it exists to check.
func Path(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("MCPCHAOS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "no Chromium: set MCPCHAOS_CHROMIUM or install chromium (Debian: apt-get install -y chromium)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Allocator returns a chromedp allocator context for a headless Chromium
// at exe with a fresh profile and a window of width × height. Cancel it to
// stop the browser.
func Allocator(ctx context.Context, t testing.TB, exe string, width, height int) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.UserDataDir(t.TempDir()), // a fresh profile: no cache, no state from an earlier run
		chromedp.WindowSize(width, height),
	)
	return chromedp.NewExecAllocator(ctx, opts...)
}
