package agentsim

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzExtract: the extractor reads untrusted server text, so it must
// never panic, must stay fast, and every quote must be valid UTF-8 taken
// from the (repaired) input.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"", carefulUnknown, carefulUnreachable, ledgerNotFound,
		"Retry with force: true.", "This is permanent. Try again later.",
		"panic: boom\n\ngoroutine 1 [running]:\nmain.go:1 +0x1",
		"token=abc123def456ghi789 at 10.0.0.1:5432 (SQLSTATE 23505)",
		"If it fails again, , , ;;; .. please", "call call call find_shipments find_shipments",
		"\xff\xfe invalid utf-8 \xc3", "::::::::", "[::1]:80 fe80::1%eth0",
		strings.Repeat("retry once ", 200),
	} {
		f.Add(s, "create_shipment")
	}
	f.Fuzz(func(t *testing.T, text, current string) {
		start := time.Now()
		got := Extract(text, shippingTools, current)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Extract took %v on %d bytes", d, len(text))
		}
		for _, q := range append([]string{got.DoNotRetry, got.RetryAfter, got.Transient, got.OutcomeUnknown,
			got.NextToolPhrase, got.Unsafe, got.UpstreamError}, got.Imperatives...) {
			if !utf8.ValidString(q) || len(q) > maxPhrase+len("…") {
				t.Errorf("bad quote %q", q)
			}
		}
		if len(got.Leaks) > maxLeaks || len(got.ArgHints) > maxHints {
			t.Errorf("%d leaks, %d hints: unbounded", len(got.Leaks), len(got.ArgHints))
		}
		for _, l := range got.Leaks {
			if len(l.Text) > maxLeakText || l.Kind == "" {
				t.Errorf("bad leak %+v", l)
			}
		}
		if got.RetryLimit < 0 || got.RetryLimit > 100 {
			t.Errorf("RetryLimit = %d", got.RetryLimit)
		}
		for _, n := range got.NextTools {
			if paramsOf(shippingTools, n) == nil && n != "list_ledgers" {
				t.Errorf("next tool %q is not in tools/list", n)
			}
		}
	})
}

// BenchmarkExtract measures the heuristics on a typical careful message;
// the simulator runs them once per call (and the judge once more).
func BenchmarkExtract(b *testing.B) {
	for b.Loop() {
		Extract(carefulUnknown, shippingTools, "create_shipment")
	}
}
