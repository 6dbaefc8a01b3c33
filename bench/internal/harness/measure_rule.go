package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/load"
)

// Bounds of the rule-change test.
const (
	liveDialers  = 8
	probeLimit   = 2 * time.Second
	liveSettle   = 100 * time.Millisecond
	controlLimit = 10 * time.Second
)

// measureRuleChange holds LiveConns live connections through t, adds a
// fault that ends a connection at its next client byte, and measures:
//
//   - call: the control call, over loopback HTTP, from request to answer
//     (mcpchaos promises the change has reached every live connection
//     when it returns);
//   - inner: the same inside the proxy process, when it says (mcpchaos);
//   - all: from the start of the call until the last connection, probed
//     at once by every connection as soon as the call returned, has seen
//     its end (RST or FIN);
//   - floor: the same probe with no fault (every connection answered),
//     i.e. how long the generator itself needs to probe that many
//     connections: all minus floor is what the proxy adds.
//
// A connection that answers after the call returned was missed by the
// change; the count of connections ended is stored next to the times.
func (r *runner) measureRuleChange(ctx context.Context, round int, t *target) error {
	lv := t.live
	if lv == nil {
		return nil
	}
	conns, err := load.Open(ctx, lv.addr, r.cfg.LiveConns, liveDialers, lv.probe)
	if err != nil {
		return fmt.Errorf("rule change %s: %w", t.name, err)
	}
	defer load.CloseConns(conns)

	floor := load.Fire(conns, lv.probe, time.Now(), probeLimit)
	if floor.Answered != len(conns) {
		return fmt.Errorf("rule change %s: with no fault only %d of %d connections answered", t.name, floor.Answered, len(conns))
	}
	if err := sleepCtx(ctx, liveSettle); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, controlLimit)
	defer cancel()
	if err := lv.ctl.warm(cctx); err != nil {
		return fmt.Errorf("rule change %s: %w", t.name, err)
	}

	t0 := time.Now()
	inner, err := lv.ctl.addReset(cctx, lv.role)
	call := time.Since(t0)
	if err != nil {
		return fmt.Errorf("rule change %s: %w", t.name, err)
	}
	fired := load.Fire(conns, lv.probe, t0, probeLimit)
	if err := lv.ctl.removeReset(cctx, lv.role); err != nil {
		return fmt.Errorf("rule change %s: remove: %w", t.name, err)
	}

	r.st.put(round, "rule.call", t.name, millis(call))
	if inner >= 0 {
		r.st.put(round, "rule.inner", t.name, millis(inner))
	}
	r.st.put(round, "rule.all", t.name, millis(fired.Last))
	r.st.put(round, "rule.floor", t.name, millis(floor.Last))
	r.st.put(round, "rule.ended", t.name, float64(fired.Ended))
	in := "n/a"
	if inner >= 0 {
		in = fmt.Sprintf("%.3f ms", millis(inner))
	}
	r.logf("  rule  %-14s call %.3f ms (in-process %s)  all %d seen by %.2f ms (probe floor %.2f)  ended %d (RST %d) answered %d stuck %d",
		t.name, millis(call), in, len(conns), millis(fired.Last), millis(floor.Last),
		fired.Ended, fired.Reset, fired.Answered, fired.Stuck)
	return nil
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
