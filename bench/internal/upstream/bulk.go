package upstream

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/mcpchaos/mcpchaos/bench/internal/netx"
)

// The bulk protocol. The client sends a header: one op byte and a
// big-endian uint64 count N.
//   - OpDownload: the server writes N bytes, then waits for the client to
//     close.
//   - OpUpload: the server reads exactly N bytes, then writes N back as an
//     8-byte acknowledgement.
//
// Neither direction relies on TCP half-close, which Toxiproxy does not
// carry faithfully: the byte count, not an EOF, ends a transfer.
const (
	OpDownload = 'D'
	OpUpload   = 'U'
	HeaderLen  = 9
	// BufSize is the read and write size on both ends: large enough that
	// the ends' own syscalls do not dominate the proxy's cost.
	BufSize = 1 << 20
)

// Header encodes a bulk request.
func Header(op byte, n int64) []byte {
	h := make([]byte, HeaderLen)
	h[0] = op
	binary.BigEndian.PutUint64(h[1:], uint64(n))
	return h
}

// ServeBulk runs the bulk protocol on ln until ctx ends.
func ServeBulk(ctx context.Context, ln net.Listener) error {
	return netx.Serve(ctx, ln, func(_ context.Context, c net.Conn) { _ = bulk(c) })
}

func bulk(c net.Conn) error {
	h := make([]byte, HeaderLen)
	if _, err := io.ReadFull(c, h); err != nil {
		return err
	}
	n := int64(binary.BigEndian.Uint64(h[1:]))
	buf := make([]byte, BufSize)
	switch h[0] {
	case OpDownload:
		for left := n; left > 0; {
			k, err := c.Write(buf[:min(left, int64(len(buf)))])
			if err != nil {
				return err
			}
			left -= int64(k)
		}
		// Wait for the client's close so the server never closes first
		// while bytes may still be in flight through a proxy.
		_, err := c.Read(buf[:1])
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	case OpUpload:
		for left := n; left > 0; {
			k, err := c.Read(buf[:min(left, int64(len(buf)))])
			if err != nil {
				return err
			}
			left -= int64(k)
		}
		_, err := c.Write(h[1:])
		return err
	default:
		return fmt.Errorf("unknown bulk op %q", h[0])
	}
}
