//go:build !linux

package inject

import (
	"errors"
	"io"
	"os"
	"time"
)

// Elsewhere the fast path is io.Copy, interrupted by a read deadline in
// the past. It is best effort: a copier woken by the deadline and by new
// data at once may forward that data before it re-decides.

// kickWakes: the kick must set the deadline to interrupt io.Copy.
const kickWakes = true

// pipePool is only needed by the Linux splice loop.
type pipePool struct{}

func (*pipePool) init()  {}
func (*pipePool) close() {}

// fastCopy copies src to dst until EOF (nil), a kick (errSwitch) or an
// error.
func (d *tcpDir) fastCopy() error {
	n, err := io.Copy(d.dst, d.src)
	d.forwarded.Add(n)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if err := d.src.SetReadDeadline(time.Time{}); err != nil {
			return err
		}
		return errSwitch
	}
	return err
}
