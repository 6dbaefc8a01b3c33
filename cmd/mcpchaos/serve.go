package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
)

func runServe(ctx context.Context, args []string, io stdio) int {
	fs := newFlags("serve", "[--config FILE] [flags]", `
Run one fault-injecting proxy per upstream declared in the config file, and
apply its rules, until interrupted (SIGINT or SIGTERM). Point your MCP
server's upstream addresses at the proxies. On shutdown every fault is
removed before the proxies close, so nothing stays broken.

Every rule expires after its ttl (default --default-ttl). Without --config
the proxy starts with no upstream.`, io)
	cfgPath := fs.String("config", "", "YAML file of upstreams and rules (see docs/config.md)")
	seed := fs.Uint64("seed", 0, "seed for probability decisions and jitter (0: the config's seed, else 1)")
	defTTL := fs.Duration("default-ttl", 0, "TTL of rules that set none (0: the config's, else 15m)")
	maxTTL := fs.Duration("max-ttl", 0, "cap on every rule's TTL (0: the config's, else none)")
	logFormat := fs.String("log-format", "auto", "log format: auto (console on a terminal, else json), console or json")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	if done, code := parse(fs, args, io); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "mcpchaos serve: unexpected argument %q (the config file goes after --config)\n", fs.Arg(0))
		return exitUsage
	}
	log, err := newLogger(io.err, *logFormat, *logLevel)
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos serve: %v\n", err)
		return exitUsage
	}
	cfg := &config.File{}
	if *cfgPath != "" {
		if cfg, err = config.Load(*cfgPath); err != nil {
			fmt.Fprintf(io.err, "mcpchaos serve: %v\n", err)
			return exitUsage
		}
	}
	opts := inject.Options{Logger: log, Seed: 1, DefaultTTL: cfg.DefaultTTL, MaxTTL: cfg.MaxTTL}
	if cfg.Seed != nil {
		opts.Seed = *cfg.Seed
	}
	if *seed != 0 {
		opts.Seed = *seed
	}
	if *defTTL != 0 {
		opts.DefaultTTL = *defTTL
	}
	if *maxTTL != 0 {
		opts.MaxTTL = *maxTTL
	}
	reg := inject.New(opts)
	if err := cfg.Apply(reg); err != nil {
		_ = reg.Close()
		fmt.Fprintf(io.err, "mcpchaos serve: %v\n", err)
		return exitUsage
	}
	for _, u := range reg.Upstreams() {
		log.Info().Str("upstream", u.Name).Str("protocol", u.Protocol).Str("listen", u.Listen).Str("target", u.Target).Msg("proxy listening")
	}
	log.Info().Int("rules", reg.Table().Load().Len()).Uint64("seed", opts.Seed).Msg("serving; interrupt to stop")
	err = reg.Run(ctx)
	return shutdown(reg, log, err)
}

// shutdown heals every connection before closing the proxies.
func shutdown(reg *inject.Registry, log zerolog.Logger, runErr error) int {
	start := time.Now()
	n := reg.Halt()
	if err := reg.Close(); err != nil {
		log.Error().Err(err).Msg("closing proxies")
		return exitFailed
	}
	log.Info().Int("rules_removed", n).Dur("took", time.Since(start)).Msg("stopped")
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		log.Error().Err(runErr).Msg("serve")
		return exitFailed
	}
	return exitOK
}
