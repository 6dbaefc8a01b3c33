package grade_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/front/grade"
	"github.com/mcpchaos/mcpchaos/inject"
)

// BenchmarkGradeCall is what grading one ended call costs the live
// grader, against the earlier calls a recorder passes (the same call
// repeated: a long session of one tool and arguments, as bench/front.sh
// drives, and the worst case for the grader).
func BenchmarkGradeCall(b *testing.B) {
	reg := inject.New(inject.Options{Logger: zerolog.Nop()})
	g := grade.New(reg, grade.Options{})
	b.Cleanup(func() {
		_ = g.Close()
		_ = reg.Close()
	})
	sess := front.Session{ID: "s", Tools: []front.Tool{{Name: "create_order", Params: []string{"sku"}}}}
	for _, n := range []int{0, 100, 1023} {
		b.Run(fmt.Sprint("earlier=", n), func(b *testing.B) {
			earlier := make([]*front.Call, n)
			start := time.Now()
			for i := range earlier {
				earlier[i] = &front.Call{Session: "s", Seq: i + 1, N: i + 1, Tool: "create_order", Args: map[string]any{"sku": "A-1001"},
					Attempt: i + 1, Channel: front.ChannelSuccess, Text: `{"ok":true,"sku":"A-1001"}`, Start: start}
			}
			c := front.Call{Session: "s", Seq: n + 1, N: n + 1, Tool: "create_order", Args: map[string]any{"sku": "A-1001"},
				Attempt: n + 1, Channel: front.ChannelSuccess, Text: `{"ok":true,"sku":"A-1001"}`, Start: start}
			b.ReportAllocs()
			for b.Loop() {
				g.GradeCall(sess, c, earlier)
			}
		})
	}
}
