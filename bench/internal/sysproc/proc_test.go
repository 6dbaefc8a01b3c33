package sysproc

import (
	"os"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// A command name with a space and a parenthesis, as /proc allows.
	stat := "1234 (a b) c) S 1 1234 1234 0 -1 4194304 100 0 0 0 250 75 0 0 20 0 3 0 123 4567 89\n"
	got, err := parseStat([]byte(stat))
	if err != nil {
		t.Fatal(err)
	}
	if want := 3250 * time.Millisecond; got != want {
		t.Errorf("parseStat = %v, want %v", got, want)
	}
	if _, err := parseStat([]byte("1234 (x) S 1")); err == nil {
		t.Error("short stat accepted")
	}
}

func TestParseStatus(t *testing.T) {
	status := "Name:\tx\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t3\n"
	tests := []struct {
		key  string
		want int64 // -1: an error
	}{
		{"VmRSS", 10240 * 1024},
		{"VmHWM", 20480 * 1024},
		{"RSS", -1}, // a key must match a whole field name
		{"VmSwap", -1},
	}
	for _, tt := range tests {
		got, err := parseStatus([]byte(status), tt.key)
		if tt.want < 0 {
			if err == nil {
				t.Errorf("%s: got %d, want an error", tt.key, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s = %d, %v; want %d", tt.key, got, err, tt.want)
		}
	}
	if _, err := parseStatus([]byte("Name:\tx\nVmRSS:\t10 MB\n"), "VmRSS"); err == nil {
		t.Error("a line not in kB accepted")
	}
}

func TestSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no /proc on the CI machine: %v", err)
		}
		t.Skip("no /proc")
	}
	if _, err := CPU(os.Getpid()); err != nil {
		t.Error(err)
	}
	rss, err := RSS(os.Getpid())
	if err != nil || rss <= 0 {
		t.Errorf("RSS = %d, %v", rss, err)
	}
	if peak, err := PeakRSS(os.Getpid()); err != nil || peak < rss {
		t.Errorf("PeakRSS = %d, %v; RSS is %d", peak, err, rss)
	}
}
