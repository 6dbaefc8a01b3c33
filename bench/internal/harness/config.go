package harness

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/upstream"
)

// Config says what to run and how long.
type Config struct {
	// BinDir holds the programs built from bench/cmd: upstream,
	// plainproxy and mcpchaos-proxy.
	BinDir string
	// Toxiproxy is the path of toxiproxy-server v2.5.0; empty leaves
	// Toxiproxy out of the run.
	Toxiproxy string
	// Rounds is how many interleaved rounds to run; figures are medians
	// over rounds.
	Rounds int
	// Warmup and Window are the unmeasured and measured parts of each
	// HTTP load.
	Warmup, Window time.Duration
	// NewConnWorkers is the concurrency of the new-connection load.
	NewConnWorkers int
	// BulkBytes is the size of each bulk transfer, each way.
	BulkBytes int64
	// BigBytes is the body size of the large-body HTTP test, and BigReps
	// how many exchanges it makes each way per target and round.
	BigBytes int64
	BigReps  int
	// IdleConns is the number of idle connections the memory test holds.
	IdleConns int
	// LiveConns is the number of live connections a rule change must
	// reach.
	LiveConns int
	// Out receives the report; Log receives progress.
	Out, Log io.Writer
	// Raw, if set, is a file to write every per-round figure to as JSON.
	Raw string
}

// Defaults is the full run the issue asks for.
func Defaults() Config {
	return Config{
		Rounds:         5,
		Warmup:         500 * time.Millisecond,
		Window:         3 * time.Second,
		NewConnWorkers: 8,
		BulkBytes:      1 << 30,
		BigBytes:       64 << 20,
		BigReps:        3,
		IdleConns:      2000,
		LiveConns:      1000,
	}
}

// Quick is a smoke run: every measurement once, tiny. Its figures mean
// nothing; it shows the harness works.
func Quick() Config {
	c := Defaults()
	c.Rounds = 1
	c.Warmup = 50 * time.Millisecond
	c.Window = 200 * time.Millisecond
	c.BulkBytes = 8 << 20
	// The large body keeps its size: below the HTTP proxy's 32 MiB cap
	// on a held body, the test would not show what it is there for.
	c.BigReps = 1
	c.IdleConns = 50
	c.LiveConns = 50
	return c
}

func (c *Config) validate() error {
	switch {
	case c.BinDir == "":
		return errors.New("harness: BinDir is required")
	case c.Rounds < 1 || c.Rounds > 100:
		return errors.New("harness: Rounds must be within 1..100")
	case c.Window <= 0 || c.Warmup < 0:
		return errors.New("harness: Window must be positive and Warmup not negative")
	case c.NewConnWorkers < 1 || c.BulkBytes < 1 || c.IdleConns < 1 || c.LiveConns < 1:
		return errors.New("harness: NewConnWorkers, BulkBytes, IdleConns and LiveConns must be positive")
	case c.BigBytes < 1 || c.BigBytes > upstream.MaxBytes || c.BigReps < 1 || c.BigReps > 100:
		return fmt.Errorf("harness: BigBytes must be within 1..%d and BigReps within 1..100", int64(upstream.MaxBytes))
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}
