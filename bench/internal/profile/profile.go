// Package profile starts a CPU profile for the benchmark's proxies, so
// that a figure that misses its target can be traced to the code that
// costs it (go tool pprof).
package profile

import (
	"os"
	"runtime/pprof"
)

// Start profiles the process's CPU into path until the returned function
// is called.
func Start(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}
