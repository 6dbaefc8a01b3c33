//go:build linux

package inject

import (
	"net"
	"syscall"
)

// closeListener stops ln listening, then closes it. Closing alone drops
// this process's descriptor only: a server process being started holds
// a copy of every descriptor from its fork to its exec, and the socket
// would go on accepting until then, so a dial meant to be refused would
// connect and then be reset. shutdown acts on the socket itself, whoever
// holds it: Linux takes a listening socket out of LISTEN (the dials
// queued and not accepted are reset, as close does).
func closeListener(ln net.Listener) error {
	if sc, ok := ln.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) {
				_ = syscall.Shutdown(int(fd), syscall.SHUT_RD)
			})
		}
	}
	return ln.Close()
}
