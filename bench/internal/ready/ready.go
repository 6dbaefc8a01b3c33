// Package ready is the handshake between the benchmark harness and the
// programs it starts: once a program is serving, it prints one JSON line
// naming its listening addresses. Programs listen on port 0, so the
// harness never guesses a free port and never races another process for
// one.
package ready

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Line is the one line a program prints on stdout when it is ready.
type Line struct {
	// Addrs maps a role ("http", "bulk", "echo", "control") to the
	// host:port the program listens on for it.
	Addrs map[string]string `json:"addrs"`
}

// Announce writes the ready line for addrs to w.
func Announce(w io.Writer, addrs map[string]string) error {
	b, err := json.Marshal(Line{Addrs: addrs})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// Await reads the ready line from r. It gives up when ctx ends; the
// caller then kills the program, which unblocks the read.
func Await(ctx context.Context, r io.Reader) (map[string]string, error) {
	type result struct {
		addrs map[string]string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		br := bufio.NewReaderSize(r, 4096)
		line, err := br.ReadBytes('\n')
		if err != nil {
			done <- result{err: fmt.Errorf("no ready line: %w", err)}
			return
		}
		var l Line
		if err := json.Unmarshal(line, &l); err != nil {
			done <- result{err: fmt.Errorf("bad ready line %q: %w", line, err)}
			return
		}
		if len(l.Addrs) == 0 {
			done <- result{err: errors.New("ready line names no address")}
			return
		}
		// Drain the rest so the program never blocks on a full pipe.
		go func() { _, _ = io.Copy(io.Discard, br) }()
		done <- result{addrs: l.Addrs}
	}()
	select {
	case res := <-done:
		return res.addrs, res.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for ready line: %w", ctx.Err())
	}
}
