//go:build !linux

package inject

import "net"

// closeListener closes ln. Elsewhere shutdown does not stop a listening
// socket, so a server process between its fork and its exec may keep it
// accepting a moment longer (see the Linux version).
func closeListener(ln net.Listener) error { return ln.Close() }
