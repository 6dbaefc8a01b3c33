package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/front/grade"
	"github.com/mcpchaos/mcpchaos/inject"
)

// Server is the control API over one registry. Create it with [New]; serve
// it with [Server.Serve], or mount [Server.Handler] and call
// [Server.Close] when done.
type Server struct {
	reg     *inject.Registry
	opts    Options
	log     zerolog.Logger
	router  chi.Router
	doc     []byte // the OpenAPI document, encoded
	metrics *metrics
	sub     *inject.Subscription // the metrics consumer's; Close ends it
	audit   *auditLog
	runs    *runStore
	live    *front.Recorder
	ownLive bool // live is the server's own, closed with it
	// grader grades live sessions for the report; ownGrader: the
	// server's own, closed with it.
	grader    *grade.Live
	ownGrader bool

	// mu serialises changes to upstreams and faults: "create" must be able
	// to refuse a taken name, and enable, disable and update remove then
	// re-add a proxy, which nothing may interleave with.
	mu sync.Mutex
	// disabled holds the specs of disabled upstreams (their proxies are
	// stopped); changed under mu and dmu, read under either.
	dmu      sync.Mutex
	disabled map[string]inject.UpstreamSpec

	// ctx is cancelled by Close: it ends runs, event streams and long
	// polls. Every goroutine the server starts, and every streaming
	// handler, is counted in wg through track.
	ctx      context.Context
	cancel   context.CancelFunc
	trackMu  sync.Mutex
	closed   bool // guarded by trackMu
	wg       sync.WaitGroup
	closeErr sync.Once
}

// New returns a server over reg. It starts one goroutine, which turns the
// registry's events into metrics (and live sessions that end in a loop or
// a duplicate into audit entries); [Server.Close] (or the end of
// [Server.Serve]) stops it.
func New(reg *inject.Registry, opts Options) *Server {
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		reg:      reg,
		opts:     opts,
		log:      opts.Logger,
		audit:    newAuditLog(opts.AuditKeep),
		disabled: map[string]inject.UpstreamSpec{},
		ctx:      ctx,
		cancel:   cancel,
	}
	s.runs = newRunStore(opts.RunsKeep)
	s.live, s.grader = opts.Live, opts.LiveGrader
	if s.grader == nil {
		s.grader, s.ownGrader = grade.New(reg, grade.Options{Internal: grade.UpstreamValues(reg)}), true
	}
	if s.live == nil {
		s.live, s.ownLive = front.NewRecorder(reg, front.RecorderOptions{Logger: opts.Logger, Clock: opts.Clock, Grader: s.grader}), true
		reg.UseFront(inject.ProtocolMCP, s.live.NewFront)
	}
	s.metrics = newMetrics(s)
	s.router = s.routes()
	// The document is constant data; it always encodes.
	s.doc, _ = json.MarshalIndent(OpenAPI(), "", "  ")
	s.sub = reg.Bus().Subscribe(metricsBuffer)
	s.track()
	go func() {
		defer s.wg.Done()
		s.consume(s.sub)
	}()
	return s
}

// consume reads the registry's events until sub is closed: each is
// counted, and a live session that ended in a loop or a duplicate is
// audited.
func (s *Server) consume(sub *inject.Subscription) {
	for e := range sub.C() {
		s.metrics.count(e)
		if e.Type == inject.EventSessionClose {
			s.auditSessionSafely(e)
		}
	}
}

// auditSessionSafely audits e; a panic there (the audit grades the
// session again, reading text from outside the process: a bug there)
// loses that entry only and is logged: this goroutine counts every event
// for /metrics and must outlive it.
func (s *Server) auditSessionSafely(e inject.Event) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error().Str("panic", fmt.Sprint(v)).Bytes("stack", debug.Stack()).Str("session", e.Session).
				Msg("audit of a live session panicked; the entry is lost")
		}
	}()
	s.auditSession(e)
}

// Handler returns the router: every route of the API.
func (s *Server) Handler() http.Handler { return s.router }

// track counts one more goroutine or stream in s.wg, unless the server is
// closing (then it reports false and the caller must not start).
func (s *Server) track() bool {
	s.trackMu.Lock()
	defer s.trackMu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

// Close cancels the runs in progress, ends event streams and long polls,
// and waits for every goroutine the server started. It does not touch the
// registry: its owner halts and closes it (faults first, so that nothing
// stays broken).
func (s *Server) Close() error {
	s.closeErr.Do(func() {
		s.trackMu.Lock()
		s.closed = true
		s.trackMu.Unlock()
		s.cancel()
		s.sub.Close()
	})
	s.wg.Wait()
	if s.ownLive {
		_ = s.live.Close()
	}
	if s.ownGrader {
		_ = s.grader.Close()
	}
	return nil
}

// Serve serves the API on ln until ctx is done, then shuts down: it stops
// accepting, ends event streams and runs, lets other requests finish
// within Options.ShutdownGrace, and waits for every goroutine it started.
// It refuses a listener off loopback when no token is set. It returns nil
// after a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := CheckBind(ln.Addr().String(), s.opts.Token); err != nil {
		_ = ln.Close()
		_ = s.Close()
		return err
	}
	srv := &http.Server{
		Handler: s.router,
		// No WriteTimeout: event streams are long-lived; each of their
		// writes has its own deadline instead.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
		ErrorLog:          log.New(s.log, "", 0),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	// Streams and long polls watch s.ctx: cancel it first so that
	// Shutdown does not wait for them.
	_ = s.Close()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownGrace)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil {
		_ = srv.Close()
	}
	if err == nil {
		err = <-errc
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("control API: %w", err)
	}
	return nil
}
