// Command plainproxy is the benchmark's yardstick proxy: for each
// "-tcp name=target" it listens on a free loopback port and copies every
// connection to target with two io.Copy goroutines (splice on Linux). It
// prints one ready line mapping each name to its listening address and
// serves until SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/mcpchaos/mcpchaos/bench/internal/flagx"
	"github.com/mcpchaos/mcpchaos/bench/internal/plain"
	"github.com/mcpchaos/mcpchaos/bench/internal/profile"
	"github.com/mcpchaos/mcpchaos/bench/internal/ready"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "plainproxy:", err)
		os.Exit(1)
	}
}

func run() error {
	var tcp flagx.Pairs
	flag.Var(&tcp, "tcp", "name=host:port to proxy (repeatable)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if len(tcp) == 0 {
		return errors.New("nothing to proxy: give -tcp name=host:port")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *cpuProfile != "" {
		end, err := profile.Start(*cpuProfile)
		if err != nil {
			return err
		}
		defer end()
	}

	addrs := map[string]string{}
	lns := make([]net.Listener, len(tcp))
	for i, kv := range tcp {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		lns[i] = ln
		addrs[kv[0]] = ln.Addr().String()
	}
	var wg sync.WaitGroup
	for i, kv := range tcp {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := plain.Serve(ctx, lns[i], kv[1]); err != nil {
				fmt.Fprintf(os.Stderr, "plainproxy: %s: %v\n", kv[0], err)
				stop()
			}
		}()
	}
	if err := ready.Announce(os.Stdout, addrs); err != nil {
		stop()
	}
	wg.Wait()
	return nil
}
