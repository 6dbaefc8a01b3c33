//go:build !unix

package front

import "os/exec"

// ownGroup does nothing where there are no process groups to share.
func ownGroup(*exec.Cmd) {}
