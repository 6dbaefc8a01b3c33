//go:build linux

package inject

import (
	"os"
	"syscall"
)

// On Linux the fast path is a splice(2) loop of our own rather than
// io.Copy, for two reasons:
//
//   - It checks the kick flag right before each read, under the
//     direction's syscall lock, so a rule change made before a byte
//     arrives always sees that byte. io.Copy can only be interrupted by a
//     read deadline, and a copier parked in the poller that is woken by
//     the deadline and by new data at once reads the data first.
//   - It holds a pipe only while bytes are in flight. io.Copy keeps one
//     (two descriptors, and pipe buffer quota) per direction of every
//     idle connection.

const (
	// spliceMax caps one splice call; pipes are grown to match when the
	// system allows, as the standard library does.
	spliceMax = 1 << 20
	// spliceNonblock is SPLICE_F_NONBLOCK.
	spliceNonblock = 0x2
	// maxIdlePipes bounds the pipes a proxy keeps for reuse.
	maxIdlePipes = 64
	// kickWakes: a kick need not wake a parked copier, which notices
	// the flag when the next byte makes the socket readable.
	kickWakes = false
)

type splicePipe struct{ r, w int }

func (p splicePipe) close() {
	_ = syscall.Close(p.r)
	_ = syscall.Close(p.w)
}

// pipePool keeps empty pipes for reuse by a proxy's connections.
type pipePool struct{ free chan splicePipe }

func (pp *pipePool) get() (splicePipe, error) {
	if pp.free == nil {
		return newSplicePipe()
	}
	select {
	case p := <-pp.free:
		return p, nil
	default:
		return newSplicePipe()
	}
}

// put returns an empty pipe to the pool; one still holding bytes is
// closed.
func (pp *pipePool) put(p splicePipe, empty bool) {
	if empty && pp.free != nil {
		select {
		case pp.free <- p:
			return
		default:
		}
	}
	p.close()
}

// init prepares the pool; close releases every pipe in it once no
// connection can use it any more.
func (pp *pipePool) init() { pp.free = make(chan splicePipe, maxIdlePipes) }

func (pp *pipePool) close() {
	for {
		select {
		case p := <-pp.free:
			p.close()
		default:
			return
		}
	}
}

func newSplicePipe() (splicePipe, error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return splicePipe{}, os.NewSyscallError("pipe2", err)
	}
	// Best effort: a bigger pipe moves more per call.
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(fds[0]), syscall.F_SETPIPE_SZ, spliceMax)
	return splicePipe{r: fds[0], w: fds[1]}, nil
}

// fastCopy splices src to dst until EOF (nil), a kick (errSwitch) or an
// error. It adds to forwarded as bytes leave the pipe.
func (d *tcpDir) fastCopy() error {
	src, err := d.src.SyscallConn()
	if err != nil {
		return err
	}
	dst, err := d.dst.SyscallConn()
	if err != nil {
		return err
	}
	pool := &d.c.p.pipes
	for {
		var (
			pipe splicePipe
			have bool
			in   int64
			serr error
		)
		err := src.Read(func(fd uintptr) bool {
			d.sysMu.Lock()
			defer d.sysMu.Unlock()
			if d.kicked.Load() {
				serr = errSwitch
				return true
			}
			if !have {
				if pipe, serr = pool.get(); serr != nil {
					return true
				}
				have = true
			}
			for {
				in, serr = syscall.Splice(int(fd), nil, pipe.w, nil, spliceMax, spliceNonblock)
				if serr != syscall.EINTR {
					break
				}
			}
			if serr == syscall.EAGAIN {
				// Nothing to read: wait without holding a pipe.
				pool.put(pipe, true)
				have = false
				return false
			}
			return true
		})
		switch {
		case err == nil && serr == nil && in > 0:
		case err == nil && serr == errSwitch:
			err = errSwitch
		case err == nil && serr != nil:
			err = os.NewSyscallError("splice", serr)
		}
		if err != nil || in == 0 { // in == 0: EOF
			if have {
				pool.put(pipe, true)
			}
			return err
		}
		if err := d.drain(dst, pipe, in); err != nil {
			pool.put(pipe, false)
			return err
		}
		pool.put(pipe, true)
	}
}

// drain moves n bytes from pipe to dst.
func (d *tcpDir) drain(dst syscall.RawConn, pipe splicePipe, n int64) error {
	for n > 0 {
		var w int64
		var serr error
		err := dst.Write(func(fd uintptr) bool {
			for {
				w, serr = syscall.Splice(pipe.r, nil, int(fd), nil, int(n), spliceNonblock)
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
		n -= w
		d.forwarded.Add(w)
	}
	return nil
}
