package front

import "github.com/mcpchaos/mcpchaos/agent-sim/transcript"

// A Grader grades what a front recorded: each call once it ended, each
// session once it closed. It is where live verdicts plug in (the
// simulator's reader and judge, loops and duplicates per session); its
// Grade becomes the Verdict and Findings of the record, the event and the
// metrics. A Recorder calls it from one goroutine of its own, off the
// data path.
type Grader interface {
	// GradeCall grades c, given its session as known when c ended (its
	// tools; zero when the recorder has forgotten it) and the calls of the
	// session with c's tool and arguments (its CallKey) that ended before
	// c (oldest first, as many as the recorder remembers): what a retry
	// loop or a duplicated write of c is made of. Only those, and by
	// pointer into the recorder's memory, so that grading a call costs
	// about the same in a session of ten calls and of ten thousand; they
	// are read-only, and valid until GradeCall returns.
	GradeCall(s Session, c Call, earlier []*Call) Grade
	// GradeSession grades s once it closed, given its calls.
	GradeSession(s Session, calls []Call) Grade
}

// Grade is a grader's verdict on a call or a session.
type Grade struct {
	// Verdict is one word ("converged", "loop", "duplicate", ...); empty
	// means ungraded.
	Verdict string
	// Findings are finding IDs.
	Findings []string
	// Evidence says on one line why a session's verdict is what it is
	// (the looping call, the duplicated write); it goes into the
	// session_close event's detail.
	Evidence string
}

// NoGrade grades nothing: every verdict is empty.
type NoGrade struct{}

func (NoGrade) GradeCall(Session, Call, []*Call) Grade { return Grade{} }
func (NoGrade) GradeSession(Session, []Call) Grade     { return Grade{} }

// CallKey is what makes two calls the same call: the tool and its
// arguments (canonical JSON); a call whose arguments were too large to
// keep is keyed by its tool alone, its attempt number telling repeats
// apart.
func CallKey(c Call) string {
	if c.ArgsOmitted {
		return c.Tool + "\x00omitted"
	}
	return transcript.CallKey(c.Tool, c.Args)
}
