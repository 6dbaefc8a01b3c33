//go:build !unix

package main

import "os"

// exitAs ends with the server's exit status.
func exitAs(state *os.ProcessState) int { return state.ExitCode() }
