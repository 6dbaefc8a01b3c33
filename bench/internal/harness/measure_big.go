package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/load"
	"github.com/mcpchaos/mcpchaos/bench/internal/sysproc"
)

// The large-body test's fault and bounds.
const (
	// bigDelay is the latency of the faulted exchanges, both ways: small
	// next to the transfer, so the figure shows how the body is carried,
	// not the delay itself.
	bigDelay = time.Millisecond
	// bigLimit bounds one exchange: 64 MiB takes well under a second
	// through any proxy here; a minute means something is broken.
	bigLimit = time.Minute
)

// bigSpec: how the large-body test reaches a target.
type bigSpec struct {
	// kind is the program started afresh for each direction and variant,
	// serving role; empty for direct (the upstream itself, at t.http).
	kind, role string
	// latency: the target is measured a second time with a latency of
	// bigDelay added through the program's control plane.
	latency bool
}

// bigMetric names a figure of the large-body test: "big." (no fault) or
// "bigf." (latency), then "up" or "down", then suffix.
func bigMetric(faulted bool, dir, suffix string) string {
	m := "big."
	if faulted {
		m = "bigf."
	}
	if dir == load.Upload {
		m += "up"
	} else {
		m += "down"
	}
	return m + suffix
}

// measureBig makes BigReps exchanges with a BigBytes body through t,
// uploads then downloads, with no fault and (where t takes it) with a
// latency of bigDelay on every exchange.
func (r *runner) measureBig(ctx context.Context, round int, t *target) error {
	if t.big == nil {
		return nil
	}
	for _, faulted := range []bool{false, true} {
		if faulted && !t.big.latency {
			continue
		}
		for _, dir := range []string{load.Upload, load.Download} {
			if err := r.bigOnce(ctx, round, t, dir, faulted); err != nil {
				return err
			}
		}
	}
	return nil
}

// bigOnce measures one direction of one variant on a fresh instance of
// t's proxy, so that its peak RSS (VmHWM, which the kernel keeps for the
// process's whole life) covers these exchanges and nothing before them.
// It stores the median rate of the exchanges and the peak RSS over the
// instance's RSS at rest. An exchange that fails (a refusal such as 413,
// a cut) ends the series: the rate is recorded as failed, with the
// reason, and the run goes on; the peak is stored all the same.
func (r *runner) bigOnce(ctx context.Context, round int, t *target, dir string, faulted bool) error {
	addr, pid, rest := t.http, 0, int64(0)
	if t.big.kind != "" {
		inst, err := r.l.launch(ctx, t.big.kind, t.big.role)
		if err != nil {
			return fmt.Errorf("large body %s: %w", t.name, err)
		}
		defer inst.stop()
		addr, pid = inst.addrs[t.big.role], inst.p.pid()
		if err := sleepCtx(ctx, memSettleBefore); err != nil {
			return err
		}
		if rest, err = sysproc.RSS(pid); err != nil {
			return err
		}
		if faulted {
			if err := r.addLatency(ctx, inst, t.big.role); err != nil {
				return fmt.Errorf("large body %s: %w", t.name, err)
			}
			// The instance is stopped right after; removing the fault
			// first still checks that the control plane can.
			defer r.removeLatency(ctx, inst, t.name, t.big.role)
		}
	}

	metric := bigMetric(faulted, dir, "")
	var rates []float64
	var failed error
	for range r.cfg.BigReps {
		res, err := load.Body(ctx, addr, dir, r.cfg.BigBytes, bigLimit)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			failed = err
			break
		}
		rates = append(rates, res.MiBps())
	}
	status := fmt.Sprintf("%7.0f MiB/s", median(rates))
	if failed != nil {
		why := failReason(failed)
		r.st.fail(round, metric, t.name, why)
		status = "failed: " + why + " (" + failed.Error() + ")"
	} else {
		r.st.put(round, metric, t.name, median(rates))
	}
	if pid != 0 {
		peak, err := sysproc.PeakRSS(pid)
		if err != nil {
			return err
		}
		r.st.put(round, bigMetric(faulted, dir, ".rss"), t.name, mib(peak-rest))
		if !faulted && dir == load.Upload {
			r.st.put(round, "big.rest", t.name, mib(rest))
		}
		status += fmt.Sprintf("  RSS %.1f MiB at rest, peak %.1f MiB", mib(rest), mib(peak))
	}
	fault := "no fault"
	if faulted {
		fault = "latency " + bigDelay.String()
	}
	r.logf("  big   %-14s %-8s %-12s %s", t.name, dir, fault, status)
	return nil
}

func (r *runner) addLatency(ctx context.Context, inst *instance, role string) error {
	ctx, cancel := context.WithTimeout(ctx, controlLimit)
	defer cancel()
	if err := inst.ctl.addLatency(ctx, role, bigDelay); err != nil {
		return fmt.Errorf("add latency: %w", err)
	}
	return nil
}

func (r *runner) removeLatency(ctx context.Context, inst *instance, name, role string) {
	ctx, cancel := context.WithTimeout(ctx, controlLimit)
	defer cancel()
	if err := inst.ctl.removeLatency(ctx, role); err != nil && ctx.Err() == nil {
		r.logf("  big   %-14s remove latency: %v", name, err)
	}
}

// failReason is the short reason a failed exchange shows in the report:
// the status a proxy answered, or what happened to the connection.
func failReason(err error) string {
	var se *load.StatusError
	switch {
	case errors.As(err, &se):
		return strconv.Itoa(se.Code)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "reset"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "timeout"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "closed early"
	}
	return "error"
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
