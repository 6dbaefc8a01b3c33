package front

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/inject"
)

// TestRecorderOpenCallsBounded: reports that start calls and never end
// them (a flood, or a wrapper killed mid-call) keep at most MaxOpen calls
// open in the recorder and the registry, and a call open past the call
// timeout is closed when another starts, so it stops sharing every later
// exchange.
func TestRecorderOpenCallsBounded(t *testing.T) {
	reg := inject.New(inject.Options{Logger: zerolog.Nop()})
	clock := &stepClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	rec := NewRecorder(reg, RecorderOptions{MaxOpen: 100, Clock: clock, Limits: Limits{CallTimeout: time.Minute}})
	t.Cleanup(func() {
		_ = rec.Close()
		_ = reg.Close()
	})
	const n = 20_000
	reps := make([]Report, 0, 1000)
	for i := range n {
		c := Call{Session: fmt.Sprintf("flood-%d", i), Seq: 1, Tool: "t", Start: clock.t}
		reps = append(reps, Report{Type: ReportCallStart, Call: &c})
		if len(reps) == cap(reps) {
			if err := rec.Ingest(reps); err != nil {
				t.Fatal(err)
			}
			reps = reps[:0]
		}
	}
	if st := rec.Stats(); st.Open != 100 || reg.OpenCalls() != 100 {
		t.Fatalf("%d calls open in the recorder, %d in the registry; bound 100", st.Open, reg.OpenCalls())
	}
	clock.t = clock.t.Add(time.Minute)
	c := Call{Session: "after", Seq: 1, Tool: "t", Start: clock.t}
	if err := rec.Ingest([]Report{{Type: ReportCallStart, Call: &c}}); err != nil {
		t.Fatal(err)
	}
	if st := rec.Stats(); st.Open != 1 || reg.OpenCalls() != 1 {
		t.Errorf("after the call timeout: %d calls open in the recorder, %d in the registry; want the new one only", st.Open, reg.OpenCalls())
	}
}

// panickyGrader panics on the calls of one tool: a grader's bug, met by
// text from outside the process.
type panickyGrader struct{ NoGrade }

func (panickyGrader) GradeCall(_ Session, c Call, _ []*Call) Grade {
	if c.Tool == "boom" {
		panic("the grader choked on " + c.Text)
	}
	return Grade{Verdict: "converged"}
}

// TestRecorderSurvivesGraderPanic: a panic while grading one call drops
// that call (counted), and the recorder goes on with the next: its worker
// is serve's, and one call's bytes must not end serve.
func TestRecorderSurvivesGraderPanic(t *testing.T) {
	reg := inject.New(inject.Options{Logger: zerolog.Nop()})
	rec := NewRecorder(reg, RecorderOptions{Grader: panickyGrader{}})
	t.Cleanup(func() {
		_ = rec.Close()
		_ = reg.Close()
	})
	sub := reg.Bus().Subscribe(16)
	defer sub.Close()
	boom := Call{Session: "s", Seq: 1, Tool: "boom", Channel: ChannelSuccess, Text: "this"}
	fine := Call{Session: "s", Seq: 2, Tool: "fine", Channel: ChannelSuccess}
	if err := rec.Ingest([]Report{{Type: ReportCallEnd, Call: &boom}, {Type: ReportCallEnd, Call: &fine}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-sub.C():
			if e.Type != inject.EventCall {
				continue
			}
			if e.Tool != "fine" || e.Verdict != "converged" {
				t.Fatalf("the call after the panic: %+v", e)
			}
			if st := rec.Stats(); st.Dropped != 1 || st.Calls != 1 {
				t.Errorf("stats %+v: want the panicking call dropped, the next remembered", st)
			}
			return
		case <-deadline:
			t.Fatal("no call event after the grader panicked")
		}
	}
}

// earlierGrader records what the recorder passes as a call's earlier
// calls.
type earlierGrader struct {
	NoGrade
	last int        // the Seq to report
	got  chan []int // the Seqs of last's earlier calls
}

func (g *earlierGrader) GradeCall(_ Session, c Call, earlier []*Call) Grade {
	if c.Seq == g.last {
		var seqs []int
		for _, e := range earlier {
			seqs = append(seqs, e.Seq)
		}
		g.got <- seqs
	}
	return Grade{Verdict: "converged"}
}

// TestRecorderPassesSameCallOnly: a call is graded against the earlier
// calls of its own tool and arguments only, so that grading a call costs
// the same however long the session: 200 calls of one tool with other
// arguments stand between the repeats, and are not passed.
func TestRecorderPassesSameCallOnly(t *testing.T) {
	reg := inject.New(inject.Options{Logger: zerolog.Nop()})
	g := &earlierGrader{last: 202, got: make(chan []int, 1)}
	rec := NewRecorder(reg, RecorderOptions{Grader: g})
	t.Cleanup(func() {
		_ = rec.Close()
		_ = reg.Close()
	})
	var reports []Report
	seq := 0
	add := func(args map[string]any) {
		seq++
		c := Call{Session: "s", Seq: seq, Tool: "create_order", Args: args, Channel: ChannelToolError, Text: "failed"}
		reports = append(reports, Report{Type: ReportCallEnd, Call: &c})
	}
	add(map[string]any{"sku": "A"})
	for i := range 200 {
		add(map[string]any{"sku": fmt.Sprint("other-", i)})
	}
	add(map[string]any{"sku": "A"})
	if err := rec.Ingest(reports); err != nil {
		t.Fatal(err)
	}
	select {
	case earlier := <-g.got:
		if !slices.Equal(earlier, []int{1}) {
			t.Fatalf("call %d was graded against calls %v, want [1] (the same tool and arguments only)", seq, earlier)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the last call was not graded")
	}
}
