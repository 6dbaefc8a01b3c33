package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/front"
)

// liveReports serves POST /v1/live/reports: what `mcpchaos wrap --report`
// saw of its session, taken by the recorder as its own (calls numbered,
// attributed to upstream traffic while open, published as events).
func (s *Server) liveReports(w http.ResponseWriter, r *http.Request) {
	if err := requireMedia(r, "application/json"); err != nil {
		s.fail(w, r, err)
		return
	}
	data, err := readBody(w, r, s.opts.MaxBodyBytes)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reps, err := front.DecodeReports(data)
	if err == nil {
		err = s.live.Ingest(reps)
	}
	if err != nil {
		s.fail(w, r, errorf(http.StatusBadRequest, CodeInvalidField, "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, LiveReportResult{Accepted: len(reps)})
}

// liveSessions serves GET /v1/live/sessions: the remembered sessions in
// the order they started, the latest limit= of them (a page that shows a
// few need not read all 1024, with their tools).
func (s *Server) liveSessions(w http.ResponseWriter, r *http.Request) {
	sessions := s.live.Sessions()
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			s.fail(w, r, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "limit",
				Message: "limit must be a non-negative integer"})
			return
		}
		sessions = sessions[max(0, len(sessions)-n):]
	}
	st := s.live.Stats()
	writeJSON(w, http.StatusOK, LiveSessionList{Sessions: sessions,
		Stats: LiveStats{Open: st.Open, Calls: st.Calls, Sessions: st.Sessions, Numbered: st.Numbered, Dropped: st.Dropped}})
}

// liveCalls serves GET /v1/live/calls: the remembered calls, oldest
// first, of one session (session=), since a time (since=, RFC 3339 or a
// duration back from now), the latest limit= of them.
func (s *Server) liveCalls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cq := front.CallQuery{Session: q.Get("session")}
	if v := q.Get("since"); v != "" {
		t, err := parseSince(v, s.opts.Clock.Now())
		if err != nil {
			s.fail(w, r, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "since",
				Message: "since must be a time (RFC 3339) or a duration back from now (1h)"})
			return
		}
		cq.Since = t
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			s.fail(w, r, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "limit",
				Message: "limit must be a non-negative integer"})
			return
		}
		cq.Limit = n
	}
	writeJSON(w, http.StatusOK, LiveCallList{Calls: s.live.Calls(cq)})
}

// parseSince reads an RFC 3339 time or a duration back from now.
func parseSince(v string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Parse(time.RFC3339, v)
}
