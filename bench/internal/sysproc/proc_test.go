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

func TestParseRSS(t *testing.T) {
	got, err := parseRSS([]byte("Name:\tx\nVmRSS:\t   10240 kB\nThreads:\t3\n"))
	if err != nil || got != 10240*1024 {
		t.Errorf("parseRSS = %d, %v", got, err)
	}
	if _, err := parseRSS([]byte("Name:\tx\n")); err == nil {
		t.Error("status without VmRSS accepted")
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
	if rss, err := RSS(os.Getpid()); err != nil || rss <= 0 {
		t.Errorf("RSS = %d, %v", rss, err)
	}
}
