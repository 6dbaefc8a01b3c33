package api

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/inject"
)

// sseWriteTimeout bounds each write to an event stream: a client that
// stops reading is dropped instead of holding a goroutine forever.
const sseWriteTimeout = 10 * time.Second

// EventDropped is the SSE event type sent just before the server closes a
// stream whose client fell behind; reconnect with Last-Event-ID to replay
// what the server still remembers.
const EventDropped = "dropped"

// eventFilter selects events by type and upstream.
type eventFilter struct {
	types     []string
	upstreams []string
}

func (f eventFilter) match(e inject.Event) bool {
	return (len(f.types) == 0 || slices.Contains(f.types, string(e.Type))) &&
		(len(f.upstreams) == 0 || slices.Contains(f.upstreams, e.Upstream))
}

func splitComma(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// events serves GET /v1/events: Server-Sent Events, one per bus event.
//
// Query: type and upstream filter (comma-separated); replay=N first sends
// the last N remembered events; follow=false ends the stream after the
// replay. A Last-Event-ID header (or last_event_id) resumes after that
// event, replaying what the bus still remembers.
//
// The bus never waits for a stream: a stream that falls more than its
// buffer behind loses events, and is then told (event "dropped") and
// closed, so a slow consumer costs the proxies nothing.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := eventFilter{types: splitComma(q.Get("type")), upstreams: splitComma(q.Get("upstream"))}
	follow := q.Get("follow") != "false"
	replay, last, err := replayParams(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !s.track() {
		s.fail(w, r, errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down"))
		return
	}
	defer s.wg.Done()
	s.metrics.streams.Inc()
	defer s.metrics.streams.Dec()
	var sub *inject.Subscription
	if follow {
		// Subscribe before reading the ring, so no event falls between.
		sub = s.reg.Bus().Subscribe(s.opts.EventBuffer)
		defer sub.Close()
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w)}
	if err := sw.flush(); err != nil {
		return
	}
	sent := last
	var backlog []inject.Event
	if last > 0 {
		// Everything the bus still remembers; what is older is lost.
		backlog = s.reg.Bus().Recent(math.MaxInt)
	} else if replay > 0 {
		backlog = s.reg.Bus().Recent(replay)
	}
	for _, e := range backlog {
		if e.Seq > sent && f.match(e) {
			if sw.event(e) != nil {
				return
			}
		}
		sent = max(sent, e.Seq)
	}
	if !follow || sw.flush() != nil {
		return
	}
	s.follow(r, sw, sub, f, sent)
}

// follow streams sub until the client goes, the server closes, or the
// client falls behind.
func (s *Server) follow(r *http.Request, sw *sseWriter, sub *inject.Subscription, f eventFilter, sent uint64) {
	beat := time.NewTicker(s.opts.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case <-beat.C:
			if sw.comment("keepalive") != nil {
				return
			}
		case e, ok := <-sub.C():
			if !ok {
				return
			}
			if e.Type == inject.EventDropped || sub.Dropped() > 0 {
				s.metrics.streamsDropped.Inc()
				_ = sw.dropped(sub.Dropped(), sent)
				return
			}
			if e.Seq <= sent || !f.match(e) {
				continue
			}
			sent = e.Seq
			if sw.event(e) != nil || sw.flush() != nil {
				return
			}
		}
	}
}

func replayParams(r *http.Request) (replay int, last uint64, err error) {
	q := r.URL.Query()
	if v := q.Get("replay"); v != "" {
		if replay, err = strconv.Atoi(v); err != nil || replay < 0 {
			return 0, 0, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "replay",
				Message: "replay must be a non-negative integer"}
		}
	}
	id := r.Header.Get("Last-Event-ID")
	if id == "" {
		id = q.Get("last_event_id")
	}
	if id != "" {
		if last, err = strconv.ParseUint(id, 10, 64); err != nil {
			return 0, 0, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "Last-Event-ID",
				Message: "Last-Event-ID must be an event's seq"}
		}
	}
	return replay, last, nil
}

// sseWriter writes SSE frames, each under a write deadline.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (s *sseWriter) write(frame string) error {
	// Not every ResponseWriter supports deadlines (httptest's does not);
	// without one a write simply has no deadline.
	_ = s.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	_, err := fmt.Fprint(s.w, frame)
	return err
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
	return s.write(fmt.Sprintf("id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Type, data))
}

func (s *sseWriter) comment(c string) error {
	if err := s.write(": " + c + "\n\n"); err != nil {
		return err
	}
	return s.flush()
}

func (s *sseWriter) dropped(n, last uint64) error {
	data, _ := json.Marshal(Event{Type: EventDropped, Count: n, Seq: last,
		Detail: "this stream fell behind and is closed; reconnect with Last-Event-ID to resume"})
	if err := s.write(fmt.Sprintf("event: %s\ndata: %s\n\n", EventDropped, data)); err != nil {
		return err
	}
	return s.flush()
}
