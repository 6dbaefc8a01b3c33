package front

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// captureSink is a Sink that keeps what it is told, for assertions.
type captureSink struct {
	mu       sync.Mutex
	opened   []Session
	updated  []Session
	started  []Call
	ended    []Call
	closed   []Session
	changed  chan struct{}
	numbered int
}

func newCaptureSink() *captureSink { return &captureSink{changed: make(chan struct{}, 1)} }

func (s *captureSink) note() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *captureSink) SessionOpened(v Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opened = append(s.opened, v)
	s.note()
}

func (s *captureSink) SessionUpdated(v Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updated = append(s.updated, v)
	s.note()
}

func (s *captureSink) CallStarted(c *Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.numbered++
	c.N = 100 + s.numbered
	s.started = append(s.started, *c)
	s.note()
}

func (s *captureSink) CallEnded(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = append(s.ended, c)
	s.note()
}

func (s *captureSink) SessionClosed(v Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = append(s.closed, v)
	s.note()
}

// waitFor polls cond under the sink's lock until it holds, for at most
// 10 s (a deadline for a broken test, not a timing assertion).
func (s *captureSink) waitFor(t testing.TB, what string, cond func(*captureSink) bool) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok := cond(s)
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-s.changed:
		case <-deadline.C:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("waiting for %s: opened %d, started %d, ended %d, closed %d", what, len(s.opened), len(s.started), len(s.ended), len(s.closed))
		}
	}
}

// byTool returns the ended calls of tool, in order.
func (s *captureSink) byTool(tool string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.ended {
		if c.Tool == tool {
			out = append(out, c)
		}
	}
	return out
}

func (c Call) String() string {
	return fmt.Sprintf("%s#%d %s attempt %d: %s %d %q", c.Session, c.Seq, c.Tool, c.Attempt, c.Channel, c.Code, c.Text)
}
