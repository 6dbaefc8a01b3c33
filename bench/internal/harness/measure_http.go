package harness

import (
	"context"
	"fmt"

	"github.com/mcpchaos/mcpchaos/bench/internal/load"
)

// httpLoad is one of the three HTTP loads.
type httpLoad struct {
	id      string // metric prefix: ka1, ka32, new8
	conns   int
	newConn bool
}

func httpLoads(cfg *Config) []httpLoad {
	return []httpLoad{
		{id: "ka1", conns: 1},
		{id: "ka32", conns: 32},
		{id: "new8", conns: cfg.NewConnWorkers, newConn: true},
	}
}

// measureHTTP runs load h against t and stores req/s, p50, p99 and the
// proxy's CPU per request. A load in which a worker failed is reported
// and not stored: its rate would be wrong.
func (r *runner) measureHTTP(ctx context.Context, round int, h httpLoad, t *target) error {
	if t.http == "" {
		return nil
	}
	res, err := load.HTTP(ctx, load.HTTPOptions{
		Addr: t.http, Conns: h.conns, NewConn: h.newConn,
		Warmup: r.cfg.Warmup, Window: r.cfg.Window, CPU: t.cpu(), Via: t.httpVia,
	})
	if err != nil {
		return fmt.Errorf("%s %s: %w", h.id, t.name, err)
	}
	if res.Errors > 0 {
		r.logf("  %-5s %-14s DISCARDED: %d of %d workers failed: %v", h.id, t.name, res.Errors, h.conns, res.Err)
		r.failures++
		return nil
	}
	r.st.put(round, h.id+".rps", t.name, res.RPS())
	r.st.put(round, h.id+".p50", t.name, micros(res.P50))
	r.st.put(round, h.id+".p99", t.name, micros(res.P99))
	if t.pid != 0 {
		r.st.put(round, h.id+".cpu", t.name, micros(res.CPUPerRequest()))
	}
	r.logf("  %-5s %-14s %9.0f req/s  p50 %6.0f µs  p99 %6.0f µs  cpu %5.1f µs/req",
		h.id, t.name, res.RPS(), micros(res.P50), micros(res.P99), micros(res.CPUPerRequest()))
	return nil
}
