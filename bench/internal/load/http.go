package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// HTTPOptions describes an HTTP load.
type HTTPOptions struct {
	// Addr is the host:port to load.
	Addr string
	// Conns is the number of keep-alive connections, or with NewConn the
	// number of concurrent workers.
	Conns int
	// NewConn opens a new connection per request (Connection: close).
	NewConn bool
	// Warmup runs the load unmeasured first; Window is then measured.
	Warmup, Window time.Duration
	// CPU samples the process under test at the window's edges.
	CPU Sampler
	// Via, when set, goes through a forward proxy at Addr.
	Via Via
}

// HTTPResult is what an HTTP load measured.
type HTTPResult struct {
	// Requests completed inside the window.
	Requests int64
	// Window is the measured time.
	Window time.Duration
	// P50 and P99 are request latencies: write to last body byte with
	// keep-alive; dial to the server's close with NewConn.
	P50, P99 time.Duration
	// CPU is what the sampled process used during the window.
	CPU time.Duration
	// Errors counts workers that stopped on an error; Err is the first.
	Errors int
	Err    error
}

// RPS is requests per second.
func (r HTTPResult) RPS() float64 { return float64(r.Requests) / r.Window.Seconds() }

// CPUPerRequest is the sampled process's CPU divided by requests.
func (r HTTPResult) CPUPerRequest() time.Duration {
	if r.Requests == 0 {
		return 0
	}
	return r.CPU / time.Duration(r.Requests)
}

// Bounds that keep every loop finite whatever the clock does.
const (
	maxRequestsPerWorker = 50_000_000
	maxSamplesPerWorker  = 1 << 20
	ioTimeout            = 5 * time.Second
)

// window is the measurement interval shared by the workers of one load.
type window struct{ from, end time.Time }

// worker is one connection's (or one new-connection worker's) tally.
type worker struct {
	count int64
	lat   []int64
	err   error
}

func (w *worker) record(w0 window, t0, t1 time.Time) {
	if t1.Before(w0.from) || !t1.Before(w0.end) {
		return
	}
	w.count++
	if len(w.lat) < maxSamplesPerWorker {
		w.lat = append(w.lat, int64(t1.Sub(t0)))
	}
}

// HTTP runs one HTTP load and returns its measurements. It fails only if
// the load could not start (no connection) or the CPU could not be read;
// workers that hit an error stop, and are counted in Errors.
func HTTP(ctx context.Context, o HTTPOptions) (HTTPResult, error) {
	if o.Conns <= 0 || o.Window <= 0 {
		return HTTPResult{}, errors.New("load: Conns and Window must be positive")
	}
	d := &net.Dialer{Timeout: ioTimeout}
	var conns []net.Conn
	if !o.NewConn {
		for range o.Conns {
			c, err := o.Via.dial(ctx, d, o.Addr)
			if err != nil {
				closeAll(conns)
				return HTTPResult{}, fmt.Errorf("load: dial %s: %w", o.Addr, err)
			}
			conns = append(conns, c)
		}
		defer closeAll(conns)
	}

	start := time.Now()
	w := window{from: start.Add(o.Warmup), end: start.Add(o.Warmup + o.Window)}
	ctx, cancel := context.WithDeadline(ctx, w.end.Add(2*ioTimeout))
	defer cancel()

	workers := make([]worker, o.Conns)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ww := &workers[i]
			ww.lat = make([]int64, 0, 4096)
			if o.NewConn {
				ww.err = newConnWorker(ctx, d, o.Addr, o.Via, w, ww)
			} else {
				ww.err = keepAliveWorker(ctx, conns[i], o.Via, w, ww)
			}
		}()
	}

	cpu, cpuErr := sampleWindow(ctx, o.CPU, w)
	wg.Wait()
	if cpuErr != nil {
		return HTTPResult{}, cpuErr
	}

	res := HTTPResult{Window: o.Window, CPU: cpu}
	var all []int64
	for i := range workers {
		res.Requests += workers[i].count
		all = append(all, workers[i].lat...)
		if err := workers[i].err; err != nil {
			res.Errors++
			if res.Err == nil {
				res.Err = err
			}
		}
	}
	res.P50, res.P99 = percentiles(all)
	return res, nil
}

// sampleWindow reads the CPU sampler at w.from and w.end.
func sampleWindow(ctx context.Context, s Sampler, w window) (time.Duration, error) {
	if err := sleepUntil(ctx, w.from); err != nil {
		return 0, err
	}
	c0, err := s.sample()
	if err != nil {
		return 0, err
	}
	if err := sleepUntil(ctx, w.end); err != nil {
		return 0, err
	}
	c1, err := s.sample()
	if err != nil {
		return 0, err
	}
	return c1 - c0, nil
}

func sleepUntil(ctx context.Context, t time.Time) error {
	tm := time.NewTimer(time.Until(t))
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func keepAliveWorker(ctx context.Context, c net.Conn, via Via, w window, ww *worker) error {
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := c.SetDeadline(w.end.Add(ioTimeout)); err != nil {
		return err
	}
	br := bufio.NewReaderSize(c, 4096)
	req, _ := via.requests()
	for range maxRequestsPerWorker {
		t0 := time.Now()
		if !t0.Before(w.end) {
			return nil
		}
		if _, err := c.Write(req); err != nil {
			return err
		}
		if err := readResponse(br); err != nil {
			return err
		}
		ww.record(w, t0, time.Now())
	}
	return nil
}

func newConnWorker(ctx context.Context, d *net.Dialer, addr string, via Via, w window, ww *worker) error {
	_, req := via.requests()
	br := bufio.NewReaderSize(nil, 4096)
	for range maxRequestsPerWorker {
		t0 := time.Now()
		if !t0.Before(w.end) {
			return nil
		}
		if err := oneShot(ctx, d, addr, via, req, br); err != nil {
			return err
		}
		ww.record(w, t0, time.Now())
	}
	return nil
}

// oneShot makes one request on a fresh connection and waits for the
// server to close it, so that the server side, not the generator, holds
// the TIME_WAIT and the generator never runs out of ephemeral ports.
func oneShot(ctx context.Context, d *net.Dialer, addr string, via Via, req []byte, br *bufio.Reader) error {
	c, err := via.dial(ctx, d, addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(ioTimeout)); err != nil {
		return err
	}
	if _, err := c.Write(req); err != nil {
		return err
	}
	br.Reset(c)
	if err := readResponse(br); err != nil {
		return err
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("expected the server to close after the response, got %v", err)
	}
	return nil
}

func closeAll(cs []net.Conn) {
	for _, c := range cs {
		_ = c.Close()
	}
}
