package upstream

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Body is what the HTTP server answers to every request: 13 bytes.
const Body = "hello, world\n"

// ServeHTTP serves Body on ln until ctx ends.
func ServeHTTP(ctx context.Context, ln net.Listener) error {
	body := []byte(Body)
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", "13")
		_, _ = w.Write(body)
	})
	srv := &http.Server{
		Handler: h,
		// Generous: an idle keep-alive connection held by the memory
		// test must not be closed under it, but nothing waits forever.
		ReadHeaderTimeout: time.Minute,
		IdleTimeout:       10 * time.Minute,
	}
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stop()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
