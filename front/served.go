package front

import (
	"errors"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// NewFront is the registry's [inject.NewFront] for protocol mcp: it
// serves an [HTTPFront] on ln whose sessions and calls r records, and
// whose tamper rules are the registry's. Give it to
// [inject.Registry.UseFront].
func (r *Recorder) NewFront(ln net.Listener, env inject.FrontEnv) (inject.Front, error) {
	f, err := NewHTTPFront(HTTPOptions{Name: env.Spec.Name, Target: httpURL(env.Spec.Target), Sink: r,
		Tamper: env.Registry.Table(), Limits: r.opts.Limits, Clock: r.opts.Clock, Logger: env.Log})
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	return Serve(ln, f), nil
}

// httpURL turns an upstream's target (host:port or a URL) into a URL.
func httpURL(target string) string {
	if len(target) > 7 && target[:7] == "http://" {
		return target
	}
	return "http://" + target
}

// ServedFront is an [HTTPFront] served on a listener: an [inject.Front].
type ServedFront struct {
	f   *HTTPFront
	srv *http.Server
	wg  sync.WaitGroup
}

// Serve serves f on ln until Close.
func Serve(ln net.Listener, f *HTTPFront) *ServedFront {
	s := &ServedFront{f: f, srv: &http.Server{
		Handler: f,
		// No write timeout: SSE streams last as long as the session.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(f.opts.Logger, "", 0),
	}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			f.opts.Logger.Error().Err(err).Msg("mcp front: serve")
		}
	}()
	return s
}

// Changed implements [inject.Front]: tamper rules are read per reply.
func (s *ServedFront) Changed(*rules.Set) {}

// Close implements [inject.Front]: it closes the listener and every
// connection (SSE streams included), waits for the requests in flight,
// and ends every session.
func (s *ServedFront) Close() error {
	err := s.srv.Close()
	s.wg.Wait()
	return errors.Join(err, s.f.Close())
}
