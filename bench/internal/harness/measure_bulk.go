package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/load"
	"github.com/mcpchaos/mcpchaos/bench/internal/upstream"
)

// bulkLimit bounds one transfer: 1 GiB through the slowest proxy here
// takes under 2 s; a minute means something is broken.
const bulkLimit = time.Minute

// measureBulk moves BulkBytes each way through t and stores both rates
// and the proxy's CPU per GiB moved (both directions together).
func (r *runner) measureBulk(ctx context.Context, round int, t *target) error {
	if t.bulk == "" {
		return nil
	}
	down, err := load.Bulk(ctx, t.bulk, t.bulkVia, upstream.OpDownload, r.cfg.BulkBytes, bulkLimit, t.cpu())
	if err != nil {
		return fmt.Errorf("bulk %s: %w", t.name, err)
	}
	up, err := load.Bulk(ctx, t.bulk, t.bulkVia, upstream.OpUpload, r.cfg.BulkBytes, bulkLimit, t.cpu())
	if err != nil {
		return fmt.Errorf("bulk %s: %w", t.name, err)
	}
	r.st.put(round, "bulk.down", t.name, down.GiBps())
	r.st.put(round, "bulk.up", t.name, up.GiBps())
	gib := float64(down.Bytes+up.Bytes) / (1 << 30)
	cpuPerGiB := (down.CPU + up.CPU).Seconds() / gib
	if t.pid != 0 {
		r.st.put(round, "bulk.cpu", t.name, cpuPerGiB)
	}
	r.logf("  bulk  %-14s down %5.2f GiB/s  up %5.2f GiB/s  cpu %5.2f s/GiB",
		t.name, down.GiBps(), up.GiBps(), cpuPerGiB)
	return nil
}
