// Package netx is the accept loop the benchmark's own servers share: it
// tracks live connections so that shutdown closes every one of them and
// waits for every handler, leaving no goroutine behind.
package netx

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// Serve accepts connections on ln and runs handle for each in its own
// goroutine until ctx ends. It then closes ln and every live connection
// and waits for the handlers to return. handle owns c but need not close
// it. Temporary accept errors (EMFILE under a 2,000-connection test) are
// retried after a short pause, at most maxAcceptErrors times in a row.
func Serve(ctx context.Context, ln net.Listener, handle func(ctx context.Context, c net.Conn)) error {
	const maxAcceptErrors = 100
	var (
		mu    sync.Mutex
		conns = map[net.Conn]struct{}{}
		wg    sync.WaitGroup
	)
	stop := context.AfterFunc(ctx, func() {
		_ = ln.Close()
		mu.Lock()
		for c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	defer stop()

	var err error
	for failures := 0; failures < maxAcceptErrors; {
		var c net.Conn
		c, err = ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				err = nil
				break
			}
			failures++
			time.Sleep(10 * time.Millisecond)
			continue
		}
		failures = 0
		mu.Lock()
		if ctx.Err() != nil {
			mu.Unlock()
			_ = c.Close()
			break
		}
		conns[c] = struct{}{}
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			handle(ctx, c)
			_ = c.Close()
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
		}()
	}
	_ = ln.Close()
	mu.Lock()
	for c := range conns {
		_ = c.Close()
	}
	mu.Unlock()
	wg.Wait()
	return err
}
