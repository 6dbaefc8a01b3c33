package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
)

// progress draws a one-line bar on a terminal once a run has lasted more
// than a couple of seconds; elsewhere it stays silent.
type progress struct {
	w     io.Writer
	tty   bool
	start time.Time

	mu    sync.Mutex
	drawn bool
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && isatty.IsTerminal(f.Fd()), start: time.Now()}
}

func (p *progress) update(done, total int) {
	if !p.tty || total == 0 || time.Since(p.start) < 2*time.Second {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	const width = 30
	n := done * width / total
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < n {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r[%s] %d/%d runs", bar, done, total)
	p.drawn = true
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
