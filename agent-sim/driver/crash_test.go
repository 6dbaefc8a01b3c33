package driver

import (
	"strings"
	"testing"
)

func TestCrashExcerpt(t *testing.T) {
	var b strings.Builder
	b.WriteString("starting\nlistening on stdio\n")
	b.WriteString("panic: boom\n\ngoroutine 1 [running]:\n")
	for range 200 {
		b.WriteString("main.f(0x1234567890)\n\t/src/main.go:10 +0x1d\n")
	}
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name, in  string
		startWith string
	}{
		{"from the panic", b.String(), "panic: boom"},
		{"fatal error", "log line\nfatal error: concurrent map writes\n", "fatal error: concurrent map writes"},
		{"no panic: the end", "a\nb\nc\n", "a\nb\nc"},
		{"one long line", long, "xxx"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := crashExcerpt(tc.in)
			if !strings.HasPrefix(got, tc.startWith) {
				t.Errorf("excerpt starts %q, want %q", got[:min(len(got), 40)], tc.startWith)
			}
			if n := strings.Count(got, "\n") + 1; n > crashTailLines {
				t.Errorf("%d lines, want at most %d", n, crashTailLines)
			}
			if len(got) > crashTailBytes {
				t.Errorf("%d bytes, want at most %d", len(got), crashTailBytes)
			}
		})
	}
}
