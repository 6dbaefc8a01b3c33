package api

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/front/grade"
	"github.com/mcpchaos/mcpchaos/inject"
)

// WhoLive is an audit entry's Who when the server wrote it about live
// traffic, not on a request: a live session that ended in a retry loop
// or a duplicated write. A game day's audit then holds what the real
// agents did next to what was broken for them.
const WhoLive = "live"

// ActionLiveSession is the action of such an entry.
const ActionLiveSession = "live.session"

// maxAuditText bounds the names and the evidence an entry copies from
// live traffic, which the server's clients wrote, not its operators.
const maxAuditText = 256

// LiveAudit is what an audit entry of a live session says of it.
type LiveAudit struct {
	// Front is the mcp upstream (or "wrap") that saw the session; Session
	// its ID; Client the host's "name version", when it said.
	Front   string `json:"front"`
	Session string `json:"session"`
	Client  string `json:"client,omitempty"`
	// Verdict is the session's: "loop" or "duplicate".
	Verdict string `json:"verdict"`
	// Tool is the tool that looped (loop) or whose write was committed
	// again (duplicate).
	Tool string `json:"tool"`
	// Calls counts the session's calls; LoopCalls the calls of its first
	// retry loop (0: none); Duplicates the writes committed upstream
	// beyond the first committing call of each tool and arguments.
	Calls      int `json:"calls"`
	LoopCalls  int `json:"loop_calls"`
	Duplicates int `json:"duplicates"`
	// Evidence is the grader's, as on the session_close event.
	Evidence string `json:"evidence,omitempty"`
}

// auditSession writes an audit entry for a live session that closed with
// the verdict loop or duplicate (e is its session_close event); other
// sessions are not audited. It runs in the server's bus consumer.
func (s *Server) auditSession(e inject.Event) {
	if e.Verdict != grade.VerdictLoop && e.Verdict != grade.VerdictDuplicate {
		return
	}
	la := LiveAudit{Front: clipText(e.Upstream), Session: clipText(e.Session), Verdict: e.Verdict}
	// The recorder remembers the session and its calls before it
	// publishes session_close; the grader counts what they did upstream.
	if sess, ok := s.live.Session(e.Session); ok {
		calls := s.live.Calls(front.CallQuery{Session: e.Session})
		res := s.grader.Session(sess, calls)
		la.Client, la.Calls, la.Duplicates = clipText(sess.Client), max(sess.Calls, len(calls)), res.Duplicates
		la.Evidence = clipText(res.Evidence)
		if res.Loop != nil {
			la.LoopCalls, la.Tool = len(res.Loop.Calls), res.Loop.Tool
		}
		if e.Verdict == grade.VerdictDuplicate {
			for _, c := range calls {
				if c.Verdict == grade.VerdictDuplicate {
					la.Tool = c.Tool
					break
				}
			}
		}
		la.Tool = clipText(la.Tool)
	}
	detail := fmt.Sprintf("front=%s verdict=%s tool=%s calls=%d loop_calls=%d duplicates=%d",
		la.Front, la.Verdict, la.Tool, la.Calls, la.LoopCalls, la.Duplicates)
	entry := s.audit.add(AuditEntry{Time: e.Time, Who: WhoLive, Actor: la.Client, Action: ActionLiveSession,
		Target: la.Session, Detail: detail, Live: &la})
	s.log.Info().Uint64("seq", entry.Seq).Str("who", entry.Who).Str("actor", entry.Actor).
		Str("action", entry.Action).Str("target", entry.Target).Str("detail", entry.Detail).
		Str("evidence", la.Evidence).Msg("audit")
}

// clipText cuts v to maxAuditText bytes, on a rune boundary.
func clipText(v string) string {
	if len(v) <= maxAuditText {
		return v
	}
	v = v[:maxAuditText]
	for !utf8.ValidString(v) {
		v = v[:len(v)-1]
	}
	return strings.TrimSpace(v) + "…"
}
