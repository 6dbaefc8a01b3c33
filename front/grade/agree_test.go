package grade

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/front"
)

// TestCallVerdictsAgreeWithSession: the verdict GradeCall gives a call
// (loop, duplicate) from its key's earlier calls read in place is the one
// analyse gives the same call over the whole session, on seeded random
// sessions of one call repeated: failures and successes, POSTs and
// PUT effects committed or not, and gaps that cross the loop window.
func TestCallVerdictsAgreeWithSession(t *testing.T) {
	opts := Options{LoopThreshold: 3, LoopWindow: time.Minute}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		n := 1 + rng.IntN(12)
		l := &Live{ledger: newLedger(4096), opts: opts}
		calls := make([]front.Call, n)
		fs := make([]facts, n)
		at := time.Unix(0, 0)
		for i := range calls {
			at = at.Add(time.Duration(rng.IntN(40)) * time.Second)
			ch := front.ChannelSuccess
			if rng.IntN(3) > 0 {
				ch = front.ChannelNoResponse
			}
			calls[i] = front.Call{Session: "s", Seq: i + 1, N: i + 1, Tool: "create", Args: map[string]any{"k": "v"}, Channel: ch, Start: at}
			f := &facts{}
			switch rng.IntN(4) {
			case 1:
				f.writes = 1
			case 2:
				f.effects = map[string]bool{fmt.Sprint("up PUT /x ", rng.IntN(2)): true}
			}
			l.ledger.calls[i+1] = f
			fs[i] = *f
		}
		a := analyse(calls, fs, opts, key)
		ptrs := make([]*front.Call, n)
		for i := range calls {
			ptrs[i] = &calls[i]
		}
		for i := range calls {
			earlier := ptrs[:i]
			gotLoop := streak(earlier, calls[i], opts.LoopWindow) >= opts.LoopThreshold
			gotDup := l.duplicates(fs[i], earlier)
			if gotLoop != a.loopAt[i] || gotDup != a.dupAt[i] {
				t.Fatalf("round %d, call %d of %d: GradeCall loop %v dup %v, the session's analysis loop %v dup %v",
					round, i+1, n, gotLoop, gotDup, a.loopAt[i], a.dupAt[i])
			}
		}
	}
}
