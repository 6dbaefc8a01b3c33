package api

import (
	"context"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/inject"
)

// EventDropped is the SSE event type sent just before the server closes a
// stream whose client fell behind; reconnect with Last-Event-ID to replay
// what the server still remembers.
const EventDropped = "dropped"

// eventFilter selects events by type and upstream (a forward upstream's
// name selects its destinations' events too).
type eventFilter struct {
	types     []string
	upstreams []string
}

func (f eventFilter) match(e inject.Event) bool {
	return (len(f.types) == 0 || slices.Contains(f.types, string(e.Type))) &&
		(len(f.upstreams) == 0 || slices.Contains(f.upstreams, e.Upstream) || (e.Via != "" && slices.Contains(f.upstreams, e.Via)))
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
// closed, so a slow consumer costs the proxies nothing. A client that
// stops reading altogether is told the same way (see Options.EventStall):
// the frame in progress is finished first, so a client never sees half
// an event.
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
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), stall: s.opts.EventStall,
		onStall: s.metrics.streamsDropped.Inc, closing: s.ctx}
	// Shutdown must not wait for a write a stalled client holds up.
	stop := context.AfterFunc(s.ctx, func() { _ = sw.rc.SetWriteDeadline(time.Now()) })
	defer stop()
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
	for i, e := range backlog {
		if e.Seq > sent && f.match(e) {
			if err := sw.event(e); err != nil {
				sw.endStalled(err, uint64(len(backlog)-i-1)+pending(sub), e.Seq)
				return
			}
		}
		sent = max(sent, e.Seq)
	}
	if !follow {
		return
	}
	if err := sw.flush(); err != nil {
		sw.endStalled(err, pending(sub), sent)
		return
	}
	s.follow(r, sw, sub, f, sent)
}

// pending empties sub's buffer and returns how many events the stream
// loses by closing now: those, and those the bus already dropped.
func pending(sub *inject.Subscription) uint64 {
	if sub == nil {
		return 0
	}
	n := sub.Dropped()
	for {
		select {
		case e, ok := <-sub.C():
			if !ok {
				return n
			}
			if e.Type != inject.EventDropped {
				n++
			}
		default:
			return n
		}
	}
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
			if err := sw.comment("keepalive"); err != nil {
				sw.endStalled(err, pending(sub), sent)
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
			if err := sw.event(e); err != nil {
				sw.endStalled(err, pending(sub), sent)
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
