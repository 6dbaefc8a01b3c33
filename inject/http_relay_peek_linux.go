//go:build linux

package inject

import (
	"net"
	"syscall"
)

// peerClosed reports, without blocking, whether the upstream has closed
// c while it sat idle (or sent bytes nobody asked for, which makes it as
// unusable): http.Transport learns this from its read loop, the relay
// from one recv(MSG_PEEK|MSG_DONTWAIT) before it sends a request it must
// not send twice.
func peerClosed(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = err == nil || n > 0 || (err != syscall.EAGAIN && err != syscall.EINTR)
		return true
	})
	return closed || err != nil
}
