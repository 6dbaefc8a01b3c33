package load

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/upstream"
)

// BulkResult is one bulk transfer.
type BulkResult struct {
	Bytes   int64
	Elapsed time.Duration
	// CPU is what the sampled process used during the transfer.
	CPU time.Duration
}

// GiBps is the transfer rate in GiB per second.
func (r BulkResult) GiBps() float64 {
	return float64(r.Bytes) / (1 << 30) / r.Elapsed.Seconds()
}

// Bulk moves n bytes over one connection to addr, from the upstream to
// the generator (upstream.OpDownload) or the other way (OpUpload), and
// times it from the request to the last byte (download) or to the
// upstream's acknowledgement (upload). The transfer must finish within
// limit. via, when set, tunnels through a forward proxy at addr.
func Bulk(ctx context.Context, addr string, via Via, op byte, n int64, limit time.Duration, cpu Sampler) (BulkResult, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	d := &net.Dialer{Timeout: ioTimeout}
	c, err := via.dial(ctx, d, addr)
	if err != nil {
		return BulkResult{}, fmt.Errorf("bulk: dial %s: %w", addr, err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	buf := make([]byte, upstream.BufSize)

	c0, err := cpu.sample()
	if err != nil {
		return BulkResult{}, err
	}
	t0 := time.Now()
	if _, err := c.Write(upstream.Header(op, n)); err != nil {
		return BulkResult{}, err
	}
	switch op {
	case upstream.OpDownload:
		err = readN(c, buf, n)
	case upstream.OpUpload:
		err = upload(c, buf, n)
	default:
		err = fmt.Errorf("bulk: unknown op %q", op)
	}
	if err != nil {
		return BulkResult{}, fmt.Errorf("bulk %c via %s: %w", op, addr, err)
	}
	elapsed := time.Since(t0)
	c1, err := cpu.sample()
	if err != nil {
		return BulkResult{}, err
	}
	return BulkResult{Bytes: n, Elapsed: elapsed, CPU: c1 - c0}, nil
}

// readN reads exactly n bytes; each read makes progress or fails, so the
// loop ends.
func readN(c net.Conn, buf []byte, n int64) error {
	for left := n; left > 0; {
		k, err := c.Read(buf[:min(left, int64(len(buf)))])
		left -= int64(k)
		if err != nil && left > 0 {
			return fmt.Errorf("after %d of %d bytes: %w", n-left, n, err)
		}
	}
	return nil
}

func upload(c net.Conn, buf []byte, n int64) error {
	for left := n; left > 0; {
		k, err := c.Write(buf[:min(left, int64(len(buf)))])
		if err != nil {
			return err
		}
		left -= int64(k)
	}
	ack := make([]byte, 8)
	if _, err := io.ReadFull(c, ack); err != nil {
		return fmt.Errorf("no acknowledgement: %w", err)
	}
	if got := int64(binary.BigEndian.Uint64(ack)); got != n {
		return errors.New("acknowledgement does not match the byte count")
	}
	return nil
}
