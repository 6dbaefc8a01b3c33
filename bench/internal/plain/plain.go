// Package plain is the yardstick proxy: two goroutines per connection,
// each doing io.Copy one way between two *net.TCPConn. On Linux that copy
// is splice(2) through a pipe, so this is what one user-space hop costs
// with no fault machinery at all — the physical limit for any proxy on
// the machine.
package plain

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/netx"
)

// Serve proxies every connection accepted on ln to target until ctx ends.
func Serve(ctx context.Context, ln net.Listener, target string) error {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return netx.Serve(ctx, ln, func(ctx context.Context, c net.Conn) {
		up, err := d.DialContext(ctx, "tcp", target)
		if err != nil {
			return
		}
		pipe(c.(*net.TCPConn), up.(*net.TCPConn))
	})
}

// pipe copies both ways and returns when both directions are done. An EOF
// is passed on as a half-close, so a client that shuts down its write
// side still reads the reply; an error in either direction closes both
// connections, which ends the other copy too.
func pipe(client, up *net.TCPConn) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		copyHalf(client, up)
	}()
	copyHalf(up, client)
	<-done
	_ = up.Close()
	_ = client.Close()
}

func copyHalf(dst, src *net.TCPConn) {
	// Both arguments are *net.TCPConn, so io.Copy takes the splice path.
	_, err := io.Copy(dst, src)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		_ = dst.Close()
		_ = src.Close()
		return
	}
	_ = dst.CloseWrite()
}
