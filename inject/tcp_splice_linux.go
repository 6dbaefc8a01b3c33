//go:build linux

package inject

import (
	"os"
	"syscall"
)

// On Linux the fast path is a splice(2) loop of our own rather than
// io.Copy: it checks the kick flag right before each read, under the
// direction's syscall lock, so a rule change made before a byte arrives
// always sees that byte. io.Copy can only be interrupted by a read
// deadline, and a copier parked in the poller that is woken by the
// deadline and by new data at once reads the data first.

const (
	// spliceMax caps one splice call; the pipe is grown to match when
	// the system allows, as the standard library does.
	spliceMax = 1 << 20
	// spliceNonblock is SPLICE_F_NONBLOCK.
	spliceNonblock = 0x2
	// kickWakes: a kick need not wake a parked copier, which notices
	// the flag when the next byte makes the socket readable.
	kickWakes = false
)

// fastCopy splices src to dst until EOF (nil), a kick (errSwitch) or an
// error. It adds to forwarded as bytes leave the pipe.
func (d *tcpDir) fastCopy() error {
	if !d.hasPipe {
		var fds [2]int
		if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
			return os.NewSyscallError("pipe2", err)
		}
		// Best effort: a bigger pipe moves more per call.
		_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(fds[0]), syscall.F_SETPIPE_SZ, spliceMax)
		d.pipe, d.hasPipe = fds, true
	}
	src, err := d.src.SyscallConn()
	if err != nil {
		return err
	}
	dst, err := d.dst.SyscallConn()
	if err != nil {
		return err
	}
	for {
		var in int64
		var serr error
		err := src.Read(func(fd uintptr) bool {
			d.sysMu.Lock()
			defer d.sysMu.Unlock()
			if d.kicked.Load() {
				serr = errSwitch
				return true
			}
			for {
				in, serr = syscall.Splice(int(fd), nil, d.pipe[1], nil, spliceMax, spliceNonblock)
				if serr != syscall.EINTR {
					return serr != syscall.EAGAIN
				}
			}
		})
		switch {
		case err != nil:
			return err
		case serr == errSwitch:
			return errSwitch
		case serr != nil:
			return os.NewSyscallError("splice", serr)
		case in == 0:
			return nil // EOF
		}
		for in > 0 {
			var n int64
			err := dst.Write(func(fd uintptr) bool {
				for {
					n, serr = syscall.Splice(d.pipe[0], nil, int(fd), nil, int(in), spliceNonblock)
					if serr != syscall.EINTR {
						return serr != syscall.EAGAIN
					}
				}
			})
			if err == nil && serr != nil {
				err = os.NewSyscallError("splice", serr)
			}
			if err != nil {
				return err
			}
			in -= n
			d.forwarded.Add(n)
		}
	}
}

// closePipe releases the splice pipe once the direction is done.
func (d *tcpDir) closePipe() {
	if d.hasPipe {
		_ = syscall.Close(d.pipe[0])
		_ = syscall.Close(d.pipe[1])
		d.hasPipe = false
	}
}
