package upstream

import (
	"context"
	"net"

	"github.com/mcpchaos/mcpchaos/bench/internal/netx"
)

// ServeEcho echoes every byte it reads on ln's connections until ctx ends.
// The buffer is small on purpose: the memory test holds thousands of idle
// echo connections, and this process is not the one measured.
func ServeEcho(ctx context.Context, ln net.Listener) error {
	return netx.Serve(ctx, ln, func(_ context.Context, c net.Conn) {
		buf := make([]byte, 512)
		// Ends with the connection: the peer's close, or netx.Serve
		// closing it at shutdown.
		for {
			n, err := c.Read(buf)
			if n > 0 {
				if _, werr := c.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	})
}
