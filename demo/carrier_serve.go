package demo

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// carrierShutdownGrace bounds how long Serve waits for in-flight requests
// once its context is done.
const carrierShutdownGrace = 2 * time.Second

// Serve runs the carrier's API on ln until ctx is done, then shuts down
// cleanly: it stops accepting, lets in-flight requests finish for a short
// grace period, and closes the listener. It returns nil after a clean
// shutdown and the server's error otherwise.
func (c *Carrier) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler: c.Handler(),
		// Every read has a deadline, so a slow or stuck client (or a fault
		// proxy cutting a request) cannot hold a goroutine forever.
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       30 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), carrierShutdownGrace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		// The grace period ran out: drop whatever is still in flight.
		_ = srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
