package api

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// AuditEntry is one change made through the API (or refused by it for
// safety: an allowlist denial), or a live session that ended in a retry
// loop or a duplicated write (Who is [WhoLive]).
type AuditEntry struct {
	// Seq numbers entries from 1.
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	// Who is "token" (the request carried the token), "anonymous" (the
	// server has none) or "live" (the server wrote it about a live
	// session); Remote the client's address; Actor what the client said
	// in the X-Mcpchaos-Actor header (of a live session: the host's name
	// and version, when it said).
	Who    string `json:"who"`
	Remote string `json:"remote"`
	Actor  string `json:"actor,omitempty"`
	// Action is what was done: "upstream.create", "fault.patch",
	// "halt", "run.start", ..., "live.session".
	Action string `json:"action"`
	// Target is the upstream, fault or run acted on.
	Target string `json:"target,omitempty"`
	// Detail summarises the change ("kind=timeout ttl=30s").
	Detail string `json:"detail,omitempty"`
	// Status is the HTTP status of the response (0 for a live session).
	Status int `json:"status"`
	// Live is the session, its verdict, tool and counts (Who "live").
	Live *LiveAudit `json:"live,omitempty"`
}

// auditLog is a bounded ring of entries.
type auditLog struct {
	mu   sync.Mutex
	seq  uint64
	ring []AuditEntry
	next int
	full bool
}

func newAuditLog(keep int) *auditLog { return &auditLog{ring: make([]AuditEntry, keep)} }

func (a *auditLog) add(e AuditEntry) AuditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	e.Seq = a.seq
	a.ring[a.next] = e
	a.next++
	if a.next == len(a.ring) {
		a.next, a.full = 0, true
	}
	return e
}

// recent returns up to n entries, oldest first.
func (a *auditLog) recent(n int) []AuditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	size := a.next
	if a.full {
		size = len(a.ring)
	}
	n = min(n, size)
	out := make([]AuditEntry, 0, n)
	for i := size - n; i < size; i++ {
		j := i
		if a.full {
			j = (a.next + i) % len(a.ring)
		}
		out = append(out, a.ring[j])
	}
	return out
}

// record audits a change: to the ring and to the log. It is called after
// the change succeeded (or was refused for safety), with the response's
// status.
func (s *Server) record(r *http.Request, status int, action, target, detail string) {
	w := whoFrom(r.Context())
	e := s.audit.add(AuditEntry{Time: s.opts.Clock.Now(), Who: w.ID, Remote: w.Remote, Actor: w.Actor,
		Action: action, Target: target, Detail: detail, Status: status})
	s.log.Info().Uint64("seq", e.Seq).Str("who", e.Who).Str("remote", e.Remote).Str("actor", e.Actor).
		Str("action", e.Action).Str("target", e.Target).Str("detail", e.Detail).Int("status", status).Msg("audit")
}

// AuditList is the body of GET /v1/audit.
type AuditList struct {
	Entries []AuditEntry `json:"entries"`
}

// getAudit serves GET /v1/audit?limit=N (default and cap: everything kept).
func (s *Server) getAudit(w http.ResponseWriter, r *http.Request) {
	n := len(s.audit.ring)
	if v := r.URL.Query().Get("limit"); v != "" {
		l, err := strconv.Atoi(v)
		if err != nil || l < 0 {
			s.fail(w, r, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "limit",
				Message: "limit must be a non-negative integer"})
			return
		}
		n = min(n, l)
	}
	writeJSON(w, http.StatusOK, AuditList{Entries: s.audit.recent(n)})
}
