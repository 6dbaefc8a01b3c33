package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/inject"
)

// sseStallGrace is how long a stalled stream (see Options.EventStall)
// is given to take the rest of its frame and the "dropped" event before
// it is cut: a client that paused reads it all, one that is gone costs
// a goroutine no longer than this.
const sseStallGrace = time.Minute

// errStalled ends a stream whose client stopped reading.
var errStalled = errors.New("event stream stalled")

// sseWriter writes whole SSE frames, each flushed at once. A frame
// whose write blocks longer than stall marks the stream stalled: onStall
// runs once, right then (so the drop is counted while the client is
// still stuck), and the write goes on, under a deadline sseStallGrace
// later, so that the frame is never cut short for a client that merely
// paused.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	stall   time.Duration
	onStall func()
	stalled atomic.Bool
	// closing is the server's context: once it is done no write may
	// wait (its AfterFunc moved the deadline to now).
	closing context.Context
}

// markStalled marks the stream stalled, counting it the first time.
func (s *sseWriter) markStalled() {
	if s.stalled.CompareAndSwap(false, true) {
		s.onStall()
	}
}

// send writes and flushes one frame; it returns errStalled when the
// frame went out but the stream stalled on the way.
func (s *sseWriter) send(frame string) error {
	// Not every ResponseWriter supports deadlines (httptest's does not);
	// without one a write simply has no deadline.
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.stall + sseStallGrace))
	// Checked after the deadline is set: either the server's AfterFunc
	// comes later and cuts this write, or its context is done by now.
	if err := s.closing.Err(); err != nil {
		return err
	}
	t := time.AfterFunc(s.stall, s.markStalled)
	_, err := io.WriteString(s.w, frame)
	if err == nil {
		err = s.flush()
	}
	if !t.Stop() {
		// The timer fired: its callback may not have run yet, and the
		// stream must count as stalled from here on either way.
		s.markStalled()
	}
	if err != nil {
		return err
	}
	if s.stalled.Load() {
		return errStalled
	}
	return nil
}

func (s *sseWriter) flush() error {
	if err := s.rc.Flush(); err != nil && err != http.ErrNotSupported {
		return err
	}
	return nil
}

func (s *sseWriter) event(e inject.Event) error {
	data, err := json.Marshal(eventView(e))
	if err != nil {
		return err
	}
	return s.send(fmt.Sprintf("id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Type, data))
}

func (s *sseWriter) comment(c string) error {
	return s.send(": " + c + "\n\n")
}

// endStalled finishes a stream whose last write returned err: if it
// stalled (the frame did go out), the client is told how many events it
// lost. Any other error means the connection is gone.
func (s *sseWriter) endStalled(err error, lost, last uint64) {
	if errors.Is(err, errStalled) {
		_ = s.dropped(lost, last)
	}
}

// dropped sends the "dropped" event, the stream's last, under its own
// deadline (the client may still be slow to read it).
func (s *sseWriter) dropped(n, last uint64) error {
	data, _ := json.Marshal(Event{Type: EventDropped, Count: n, Seq: last,
		Detail: "this stream fell behind and is closed; reconnect with Last-Event-ID to resume"})
	_ = s.rc.SetWriteDeadline(time.Now().Add(sseStallGrace))
	if err := s.closing.Err(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", EventDropped, data); err != nil {
		return err
	}
	return s.flush()
}
