package front

// A Grader grades what a front recorded: each call once it ended, each
// session once it closed. It is where live verdicts plug in (the
// simulator's reader and judge, loops and duplicates per session); its
// Grade becomes the Verdict and Findings of the record, the event and the
// metrics. A Recorder calls it from one goroutine of its own, off the
// data path.
type Grader interface {
	// GradeCall grades c, given the calls of its session that ended before
	// it (oldest first, as many as the recorder remembers).
	GradeCall(c Call, earlier []Call) Grade
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
}

// NoGrade grades nothing: every verdict is empty.
type NoGrade struct{}

func (NoGrade) GradeCall(Call, []Call) Grade       { return Grade{} }
func (NoGrade) GradeSession(Session, []Call) Grade { return Grade{} }
