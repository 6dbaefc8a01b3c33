package front

import (
	"bufio"
	"errors"
	"io"
)

// pump copies newline-delimited frames from src to dst: the same bytes in
// the same order, one Write per frame. Each complete frame of at most max
// bytes (its newline included) is handed to see before it is written;
// see returns what to write instead (nil: the frame itself; drop: nothing).
// A longer frame is written piece by piece as it arrives and never seen;
// bytes after the last newline are written as they are when src ends.
// pump returns nil at src's EOF, or the first read or write error.
func pump(dst io.Writer, src io.Reader, max int, see func(frame []byte) reply) error {
	br := bufio.NewReaderSize(src, max)
	long := false // inside a frame longer than max
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case err == nil && !long:
			r := see(line)
			out := line
			if r.out != nil {
				out = append(r.out, '\n')
			}
			if !r.drop {
				if _, werr := dst.Write(out); werr != nil {
					return werr
				}
			}
			continue
		case err == nil:
			long = false
		case errors.Is(err, bufio.ErrBufferFull):
			long = true
		}
		if len(line) > 0 {
			if _, werr := dst.Write(line); werr != nil {
				return werr
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}
