// Command upstream is the benchmark's upstream: an HTTP server with a
// 13-byte body, a bulk-transfer server and an echo server, each on a free
// loopback port. It prints one ready line naming the three addresses
// ({"addrs":{"http":…,"bulk":…,"echo":…}}) and serves until SIGINT or
// SIGTERM.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/mcpchaos/mcpchaos/bench/internal/ready"
	"github.com/mcpchaos/mcpchaos/bench/internal/upstream"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "upstream:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	servers := []struct {
		role  string
		serve func(context.Context, net.Listener) error
	}{
		{"http", upstream.ServeHTTP},
		{"bulk", upstream.ServeBulk},
		{"echo", upstream.ServeEcho},
	}
	addrs := map[string]string{}
	lns := make([]net.Listener, len(servers))
	for i, s := range servers {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		lns[i] = ln
		addrs[s.role] = ln.Addr().String()
	}

	var wg sync.WaitGroup
	errs := make(chan error, len(servers))
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.serve(ctx, lns[i]); err != nil {
				errs <- fmt.Errorf("%s: %w", s.role, err)
				stop()
			}
		}()
	}
	if err := ready.Announce(os.Stdout, addrs); err != nil {
		stop()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
