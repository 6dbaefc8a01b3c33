package front

import (
	"bufio"
	"errors"
	"io"
)

// pumpBuffer is the pump's read buffer: frames longer than it are
// gathered up to the frame bound, so a wrapper costs this much memory per
// direction until a long frame comes, not the bound.
const pumpBuffer = 64 << 10

// pump copies newline-delimited frames from src to dst: the same bytes in
// the same order, one Write per frame. Each complete frame of at most max
// bytes (its newline included) is handed to see before it is written;
// see returns what to write instead (nil: the frame itself; drop: nothing).
// A longer frame is written piece by piece as it arrives and never seen;
// bytes after the last newline are written as they are when src ends.
// pump returns nil at src's EOF, or the first read or write error.
func pump(dst io.Writer, src io.Reader, max int, see func(frame []byte) reply) error {
	return pumpSized(dst, src, max, min(max, pumpBuffer), see)
}

// pumpSized is pump with a read buffer of buf bytes (at least 16).
func pumpSized(dst io.Writer, src io.Reader, max, buf int, see func(frame []byte) reply) error {
	br := bufio.NewReaderSize(src, buf)
	var acc []byte // the start of a frame longer than br's buffer
	long := false  // inside a frame longer than max: it passes unseen
	write := func(bs ...[]byte) error {
		for _, b := range bs {
			if len(b) > 0 {
				if _, err := dst.Write(b); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for {
		chunk, err := br.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		switch {
		case err != nil && !full: // the end: what is left passes as it is
			if werr := write(acc, chunk); werr != nil {
				return werr
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case long:
			if werr := write(chunk); werr != nil {
				return werr
			}
			long = full
		case len(acc)+len(chunk) > max:
			if werr := write(acc, chunk); werr != nil {
				return werr
			}
			acc, long = acc[:0], full
		case full:
			acc = append(acc, chunk...)
		default:
			frame := chunk
			if len(acc) > 0 {
				acc = append(acc, chunk...)
				frame = acc
			}
			r := see(frame)
			if r.out != nil {
				frame = append(r.out, '\n')
			}
			if !r.drop {
				if werr := write(frame); werr != nil {
					return werr
				}
			}
			acc = acc[:0]
			if cap(acc) > pumpBuffer {
				acc = nil // a long frame's buffer is not kept for the short ones
			}
		}
	}
}
