package sysproc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// ticksPerSecond is USER_HZ, the unit of utime and stime in
// /proc/<pid>/stat. It is 100 on every Linux architecture Go supports
// (the kernel fixes it for the ABI, whatever CONFIG_HZ is), so there is
// no need for sysconf and cgo. It bounds the resolution of a CPU reading
// to 10 ms, which is why the harness measures over windows of seconds.
const ticksPerSecond = 100

// CPU returns the user plus system CPU time pid has used, all threads
// included (dead threads too: the kernel folds their time into the
// process's).
func CPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStat(b)
}

// parseStat extracts utime+stime from the contents of /proc/<pid>/stat.
// The command name (field 2) may contain spaces and parentheses, so
// fields are counted from the last ')'.
func parseStat(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed stat: %q", b)
	}
	f := bytes.Fields(b[i+1:])
	// After ')': field 3 (state) is f[0], so utime (14) is f[11] and
	// stime (15) is f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("short stat: %q", b)
	}
	u, err := strconv.ParseInt(string(f[11]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("utime: %w", err)
	}
	s, err := strconv.ParseInt(string(f[12]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stime: %w", err)
	}
	return time.Duration(u+s) * time.Second / ticksPerSecond, nil
}

// RSS returns pid's resident set size in bytes (VmRSS).
func RSS(pid int) (int64, error) { return statusBytes(pid, "VmRSS") }

// PeakRSS returns the largest resident set size pid has had over its
// life, in bytes (VmHWM, "high water mark"): the kernel tracks it at
// every page fault, so no peak between two readings escapes it.
func PeakRSS(pid int) (int64, error) { return statusBytes(pid, "VmHWM") }

func statusBytes(pid int, key string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseStatus(b, key)
}

// parseStatus reads the "key:  N kB" line of /proc/<pid>/status, in
// bytes.
func parseStatus(b []byte, key string) (int64, error) {
	i := bytes.Index(b, []byte("\n"+key+":"))
	if i < 0 {
		return 0, fmt.Errorf("no %s in status", key)
	}
	line := b[i+len(key)+2:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	f := bytes.Fields(line)
	if len(f) != 2 || string(f[1]) != "kB" {
		return 0, fmt.Errorf("malformed %s line %q", key, line)
	}
	kb, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	return kb * 1024, nil
}
