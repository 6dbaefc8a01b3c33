// Command mcpchaos-proxy runs the inject package's registry, in its own
// process so that the harness can read its CPU time and memory alone. For
// each "-tcp name=target" it adds a tcp upstream, for each
// "-http name=target" an http upstream, for each "-forward name" a
// forward upstream, all on free loopback ports, with
// no rule: the idle data path the benchmark measures. A small control
// server lets the harness put and remove rules (the rule-change test).
//
// It prints one ready line mapping each upstream's name, and "control",
// to its listening address, and serves until SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpchaos/mcpchaos/bench/internal/flagx"
	"github.com/mcpchaos/mcpchaos/bench/internal/profile"
	"github.com/mcpchaos/mcpchaos/bench/internal/ready"
	"github.com/mcpchaos/mcpchaos/inject"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpchaos-proxy:", err)
		os.Exit(1)
	}
}

func run() error {
	var tcp, httpUps flagx.Pairs
	var forward []string
	flag.Var(&tcp, "tcp", "name=host:port of a tcp upstream (repeatable)")
	flag.Var(&httpUps, "http", "name=host:port of an http upstream (repeatable)")
	flag.Func("forward", "name of a forward upstream, no interception (repeatable)", func(s string) error {
		forward = append(forward, s)
		return nil
	})
	seed := flag.Uint64("seed", 1, "seed of the registry")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if len(tcp)+len(httpUps)+len(forward) == 0 {
		return errors.New("nothing to proxy: give -tcp or -http name=host:port, or -forward name")
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

	reg := inject.New(inject.Options{Seed: *seed})
	defer reg.Close()
	addrs := map[string]string{}
	for _, u := range []struct {
		protocol string
		pairs    flagx.Pairs
	}{{inject.ProtocolTCP, tcp}, {inject.ProtocolHTTP, httpUps}} {
		for _, kv := range u.pairs {
			info, err := reg.AddUpstream(inject.UpstreamSpec{
				Name: kv[0], Protocol: u.protocol, Listen: "127.0.0.1:0", Target: kv[1],
			})
			if err != nil {
				return err
			}
			addrs[kv[0]] = info.Listen
		}
	}

	for _, name := range forward {
		info, err := reg.AddUpstream(inject.UpstreamSpec{Name: name, Protocol: inject.ProtocolForward, Listen: "127.0.0.1:0"})
		if err != nil {
			return err
		}
		addrs[name] = info.Listen
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addrs["control"] = ln.Addr().String()
	srv := newControl(reg)
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := ready.Announce(os.Stdout, addrs); err != nil {
		return err
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return reg.Close()
}
