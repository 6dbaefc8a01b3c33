package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpShutdownGrace bounds how long ServeHTTP waits for requests in flight
// once its context is done.
const httpShutdownGrace = 2 * time.Second

// httpSessionTimeout closes MCP sessions idle this long: every simulator
// run opens one and a client that vanished (its container killed) never
// says goodbye.
const httpSessionTimeout = 5 * time.Minute

// ServeHTTP serves the demo MCP server of variant v over Streamable HTTP
// at /mcp on ln until ctx is done. It is how the server runs as a
// container of its own, reached by URL, with its carrier at carrierURL
// (normally an mcpchaos proxy reached by container name). It returns nil
// after a clean shutdown.
func ServeHTTP(ctx context.Context, v Variant, carrierURL string, ln net.Listener) error {
	if _, err := ParseVariant(string(v)); err != nil {
		_ = ln.Close()
		return err
	}
	if carrierURL == "" {
		_ = ln.Close()
		return fmt.Errorf("demo: no carrier URL (set %s)", CarrierURLEnv)
	}
	srv := NewServer(v, carrierURL)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: httpSessionTimeout}))
	hs := &http.Server{
		Handler: mux,
		// No WriteTimeout: a tools/call's reply may stream as SSE for as
		// long as the call lasts; the carrier client bounds each call.
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("demo server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), httpShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("demo server: %w", err)
	}
	return nil
}
