package front

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ReportsPath is where a serve takes reports, under its API's base URL.
const ReportsPath = "/v1/live/reports"

// ReporterOptions configures a [Reporter]. URL is required.
type ReporterOptions struct {
	// URL is the base URL of a running serve's API
	// ("http://127.0.0.1:7777").
	URL string
	// Token is the API's bearer token, if it has one.
	Token string
	// Queue is how many reports may wait to be sent; beyond it new ones
	// are dropped and counted. Zero means 4096.
	Queue int
	// Batch is the most reports sent in one request. Zero means 256.
	Batch int
	// Hold is how long CallStarted waits for the serve to have taken the
	// call's start before the request goes on to the server, so that the
	// upstream traffic it causes is attributed to it. Zero never waits:
	// traffic the server causes before the report arrives (typically
	// well under a millisecond later) is not attributed.
	Hold time.Duration
	// Linger is how long a batch holding no call start waits for more
	// reports before it is sent: the end of one call and the start of the
	// next then travel together. A call start is never held. Zero means
	// 2 ms; negative, no wait.
	Linger time.Duration
	// Client sends the reports; nil means a client with a 5 s timeout.
	Client *http.Client
}

// Reporter is a [Sink] that sends what a front sees to a serve's recorder
// (POST /v1/live/reports), from one goroutine of its own, in order and in
// batches. It never blocks the data path beyond Hold: when the serve is
// slow or gone, reports wait in a bounded queue and then are dropped, and
// counted. A batch that fails is tried twice more, a second apart at
// most, then dropped. Close it to send what is queued.
type Reporter struct {
	opts ReporterOptions
	url  string

	mu     sync.Mutex
	closed bool
	queue  chan pending
	done   chan struct{}
	// stopCtx ends requests and waits between tries when Close's context
	// is done.
	stopCtx context.Context
	stop    context.CancelFunc

	sent, dropped, failed atomic.Uint64
}

type pending struct {
	rep Report
	ack chan struct{} // closed once the report was sent or given up; may be nil
}

// maxTries is how many times a batch is sent before it is dropped.
const maxTries = 3

// NewReporter checks opts and starts the sending goroutine.
func NewReporter(opts ReporterOptions) (*Reporter, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("report URL %q: must be http(s)://host:port of a running serve", opts.URL)
	}
	if opts.Queue <= 0 {
		opts.Queue = 4096
	}
	if opts.Batch <= 0 {
		opts.Batch = 256
	}
	if opts.Linger == 0 {
		opts.Linger = 2 * time.Millisecond
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 2}}
	}
	r := &Reporter{opts: opts, url: strings.TrimSuffix(opts.URL, "/") + ReportsPath,
		queue: make(chan pending, opts.Queue), done: make(chan struct{})}
	r.stopCtx, r.stop = context.WithCancel(context.Background())
	go r.loop()
	return r, nil
}

// SessionOpened implements [Sink].
func (r *Reporter) SessionOpened(s Session) {
	r.enqueue(Report{Type: ReportSessionOpen, Session: &s}, nil)
}

// SessionUpdated implements [Sink].
func (r *Reporter) SessionUpdated(s Session) {
	r.enqueue(Report{Type: ReportSessionUpdate, Session: &s}, nil)
}

// CallStarted implements [Sink]; with Hold it waits (at most Hold) until
// the report was sent.
func (r *Reporter) CallStarted(c *Call) {
	cc := *c
	if r.opts.Hold <= 0 {
		r.enqueue(Report{Type: ReportCallStart, Call: &cc}, nil)
		return
	}
	ack := make(chan struct{})
	if !r.enqueue(Report{Type: ReportCallStart, Call: &cc}, ack) {
		return
	}
	t := time.NewTimer(r.opts.Hold)
	defer t.Stop()
	select {
	case <-ack:
	case <-t.C:
	}
}

// CallEnded implements [Sink].
func (r *Reporter) CallEnded(c Call) { r.enqueue(Report{Type: ReportCallEnd, Call: &c}, nil) }

// SessionClosed implements [Sink].
func (r *Reporter) SessionClosed(s Session) {
	r.enqueue(Report{Type: ReportSessionClose, Session: &s}, nil)
}

func (r *Reporter) enqueue(rep Report, ack chan struct{}) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		select {
		case r.queue <- pending{rep, ack}:
			return true
		default:
		}
	}
	r.dropped.Add(1)
	return false
}

// ReporterStats are a reporter's counters, in reports.
type ReporterStats struct {
	// Sent reached the serve; Dropped never left (the queue was full, or
	// the reporter closed); Failed were sent and refused, or could not be
	// delivered in maxTries tries.
	Sent, Dropped, Failed uint64
}

// Stats returns the reporter's counters.
func (r *Reporter) Stats() ReporterStats {
	return ReporterStats{Sent: r.sent.Load(), Dropped: r.dropped.Load(), Failed: r.failed.Load()}
}

// Close sends what is queued, trying until ctx is done, and stops the
// goroutine. Reports made after Close are dropped.
func (r *Reporter) Close(ctx context.Context) error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.queue)
	}
	r.mu.Unlock()
	stop := context.AfterFunc(ctx, r.stop)
	defer stop()
	<-r.done
	r.stop()
	r.opts.Client.CloseIdleConnections()
	return nil
}

// loop sends batches until the queue is closed and drained.
func (r *Reporter) loop() {
	defer close(r.done)
	batch := make([]pending, 0, r.opts.Batch)
	linger := time.NewTimer(time.Hour)
	defer linger.Stop()
	for first := range r.queue {
		batch = append(batch[:0], first)
		urgent := first.rep.Type == ReportCallStart
		// What is queued already goes in; then, unless a call start is
		// waiting to be attributed, linger a moment for more.
		for open := true; open && len(batch) < r.opts.Batch; {
			var p pending
			select {
			case p, open = <-r.queue:
			default:
				if urgent || r.opts.Linger < 0 {
					open = false
					continue
				}
				linger.Reset(r.opts.Linger)
				select {
				case p, open = <-r.queue:
				case <-linger.C:
					open = false
				}
				linger.Stop()
			}
			if open {
				batch = append(batch, p)
				urgent = urgent || p.rep.Type == ReportCallStart
			}
		}
		r.deliver(batch)
	}
}

// deliver sends one batch, trying again after a failure that may pass,
// and acknowledges every report in it either way.
func (r *Reporter) deliver(batch []pending) {
	defer func() {
		for _, p := range batch {
			if p.ack != nil {
				close(p.ack)
			}
		}
	}()
	body := ReportBatch{Reports: make([]Report, len(batch))}
	for i, p := range batch {
		body.Reports[i] = p.rep
	}
	data, err := json.Marshal(body)
	if err != nil {
		r.failed.Add(uint64(len(batch)))
		return
	}
	wait := 100 * time.Millisecond
	for try := 1; ; try++ {
		retry, err := r.post(data)
		if err == nil {
			r.sent.Add(uint64(len(batch)))
			return
		}
		if !retry || try == maxTries || r.sleep(wait) != nil {
			r.failed.Add(uint64(len(batch)))
			return
		}
		wait = min(2*wait, time.Second)
	}
}

// sleep waits d, or less if the reporter is told to stop.
func (r *Reporter) sleep(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.stopCtx.Done():
		return r.stopCtx.Err()
	}
}

// post sends one request; retry says whether trying again may help.
func (r *Reporter) post(data []byte) (retry bool, err error) {
	req, err := http.NewRequestWithContext(r.stopCtx, http.MethodPost, r.url, bytes.NewReader(data))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	if r.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.opts.Token)
	}
	resp, err := r.opts.Client.Do(req)
	if err != nil {
		return r.stopCtx.Err() == nil, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		// A server error or an overloaded server may pass; a refusal of
		// the reports (4xx) will not.
		return resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests,
			fmt.Errorf("%s: %s", r.url, resp.Status)
	}
	return false, nil
}
