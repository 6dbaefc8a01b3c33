package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/load"
	"github.com/mcpchaos/mcpchaos/bench/internal/sysproc"
)

// Pauses around the memory readings: long enough for the proxy to finish
// setting connections up (Toxiproxy starts its link goroutines after the
// first byte) and for a Go runtime's background work to settle.
const (
	memSettleBefore = 200 * time.Millisecond
	memSettleAfter  = 500 * time.Millisecond
	memDialers      = 8
)

// measureMemory starts a fresh instance of t's proxy, so earlier loads
// have not grown its heap, reads its VmRSS, opens IdleConns connections
// through it (each checked with one round trip, so the upstream side is
// open too), reads VmRSS again and stores the difference per connection.
func (r *runner) measureMemory(ctx context.Context, round int, t *target) error {
	if t.mem == nil {
		return nil
	}
	inst, err := r.l.launch(ctx, t.mem.kind, t.mem.role)
	if err != nil {
		return fmt.Errorf("memory %s: %w", t.name, err)
	}
	defer inst.stop()
	pid := inst.p.pid()
	if err := sleepCtx(ctx, memSettleBefore); err != nil {
		return err
	}
	before, err := sysproc.RSS(pid)
	if err != nil {
		return err
	}
	conns, err := load.Open(ctx, inst.addrs[t.mem.role], r.cfg.IdleConns, memDialers, t.mem.probe)
	if err != nil {
		return fmt.Errorf("memory %s: %w", t.name, err)
	}
	defer load.CloseConns(conns)
	if err := sleepCtx(ctx, memSettleAfter); err != nil {
		return err
	}
	after, err := sysproc.RSS(pid)
	if err != nil {
		return err
	}
	kib := float64(after-before) / float64(r.cfg.IdleConns) / 1024
	r.st.put(round, "mem.kib", t.name, kib)
	r.logf("  mem   %-14s %6.1f KiB per idle connection (%d connections, RSS %.1f → %.1f MiB)",
		t.name, kib, r.cfg.IdleConns, float64(before)/(1<<20), float64(after)/(1<<20))
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
