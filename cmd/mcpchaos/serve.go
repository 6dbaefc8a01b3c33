package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/front/grade"
	"github.com/mcpchaos/mcpchaos/inject"
)

// serveEnv maps serve's flags to the environment variables that set them
// when the flag is not given. Precedence: flag, then environment, then the
// config file.
func serveEnv() [][2]string {
	return [][2]string{
		{"config", "MCPCHAOS_CONFIG"},
		{"api", "MCPCHAOS_API_ADDR"},
		{"token", "MCPCHAOS_TOKEN"},
		{"token-file", "MCPCHAOS_TOKEN_FILE"},
		{"allow", "MCPCHAOS_ALLOW"},
		{"seed", "MCPCHAOS_SEED"},
		{"default-ttl", "MCPCHAOS_DEFAULT_TTL"},
		{"max-ttl", "MCPCHAOS_MAX_TTL"},
		{"max-fault-duration", "MCPCHAOS_MAX_FAULT_DURATION"},
		{"runs", "MCPCHAOS_RUNS"},
		{"shutdown-grace", "MCPCHAOS_SHUTDOWN_GRACE"},
		{"log-format", "MCPCHAOS_LOG_FORMAT"},
		{"log-level", "MCPCHAOS_LOG_LEVEL"},
		{"loop-threshold", "MCPCHAOS_LOOP_THRESHOLD"},
		{"loop-window", "MCPCHAOS_LOOP_WINDOW"},
	}
}

const serveHelp = `
Run one fault-injecting proxy per upstream, and the control API that
changes them while the system runs (docs/api.md), until interrupted
(SIGINT or SIGTERM). Point your MCP server's upstream addresses at the
proxies. Without --config the server starts with no upstream; the config
file seeds upstreams and rules, and the API changes them.

Safety: every fault expires (--default-ttl, at most --max-ttl through the
API). On shutdown every fault is removed first, then the proxies drain:
exchanges in flight (and held ones, now released) get --shutdown-grace to
finish before the proxies close. The API listens on loopback by default,
and refuses another address unless a token of at least 16 bytes is set
(MCPCHAOS_TOKEN); --allow restricts the targets upstreams and runs may
point at. POST /v1/runs is off unless --runs is given: it lets API clients
run commands on this host. Every change is audited (log and GET /v1/audit).

Every flag can be set by an environment variable; a flag given on the
command line wins over the variable, which wins over the config file:
  MCPCHAOS_CONFIG, MCPCHAOS_API_ADDR, MCPCHAOS_TOKEN, MCPCHAOS_TOKEN_FILE,
  MCPCHAOS_ALLOW, MCPCHAOS_SEED, MCPCHAOS_DEFAULT_TTL, MCPCHAOS_MAX_TTL,
  MCPCHAOS_RUNS, MCPCHAOS_SHUTDOWN_GRACE, MCPCHAOS_LOG_FORMAT,
  MCPCHAOS_LOG_LEVEL, MCPCHAOS_MAX_FAULT_DURATION, MCPCHAOS_LOOP_THRESHOLD,
  MCPCHAOS_LOOP_WINDOW

Live traffic (mcp upstreams, mcpchaos wrap --report) is graded with the
simulator's judge: --loop-threshold calls of the same tool and arguments,
each after a failure and within --loop-window of the first, are a retry
loop (docs/gameday.md).`

// serveFlags are serve's settings.
type serveFlags struct {
	cfgPath, apiAddr, token, tokenFile string
	allow                              listFlag
	seed                               uint64
	defTTL, maxTTL                     time.Duration
	maxFault                           time.Duration
	runs                               bool
	grace                              time.Duration
	logFormat, logLevel                string
	loopThreshold                      int
	loopWindow                         time.Duration
}

func (s *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.cfgPath, "config", "", "YAML file of upstreams and rules to start with (env MCPCHAOS_CONFIG)")
	fs.StringVar(&s.apiAddr, "api", api.DefaultAddr, `address of the control API; "off" runs the proxies without it (env MCPCHAOS_API_ADDR)`)
	fs.StringVar(&s.token, "token", "", "bearer token the API requires; prefer the environment variable, a flag shows in ps (env MCPCHAOS_TOKEN)")
	fs.StringVar(&s.tokenFile, "token-file", "", "read the API token from this file (env MCPCHAOS_TOKEN_FILE)")
	fs.Var(&s.allow, "allow", "comma-separated targets upstreams may point at: CIDR, IP, host, host:port, * globs; repeatable (env MCPCHAOS_ALLOW; default: any)")
	fs.Uint64Var(&s.seed, "seed", 0, "seed for probability decisions and jitter (0: the config's seed, else 1) (env MCPCHAOS_SEED)")
	fs.DurationVar(&s.defTTL, "default-ttl", 0, "TTL of faults that set none (0: the config's, else 15m) (env MCPCHAOS_DEFAULT_TTL)")
	fs.DurationVar(&s.maxTTL, "max-ttl", 0, "longest TTL a fault may ask for; a longer one is refused (0: the config's, else 1h) (env MCPCHAOS_MAX_TTL)")
	fs.DurationVar(&s.maxFault, "max-fault-duration", inject.DefaultMaxDuration, "cap on every duration a fault asks for (delay, jitter, close_after); longer ones are refused (env MCPCHAOS_MAX_FAULT_DURATION)")
	fs.BoolVar(&s.runs, "runs", false, "allow POST /v1/runs; this lets API clients run commands on this host (a scenario names the server command to start) (env MCPCHAOS_RUNS)")
	fs.DurationVar(&s.grace, "shutdown-grace", inject.DefaultShutdownGrace, "on shutdown, how long exchanges and connections in flight get to finish once faults are removed (env MCPCHAOS_SHUTDOWN_GRACE)")
	fs.StringVar(&s.logFormat, "log-format", "auto", "log format: auto (console on a terminal, else json), console or json (env MCPCHAOS_LOG_FORMAT)")
	fs.StringVar(&s.logLevel, "log-level", "info", "log level: debug, info, warn or error (env MCPCHAOS_LOG_LEVEL)")
	fs.IntVar(&s.loopThreshold, "loop-threshold", 3, "live traffic: calls of the same tool and arguments, each after a failure, that make a retry loop (env MCPCHAOS_LOOP_THRESHOLD)")
	fs.DurationVar(&s.loopWindow, "loop-window", 10*time.Minute, "live traffic: how long after a streak's first failure its repeats count toward a loop (env MCPCHAOS_LOOP_WINDOW)")
}

// listFlag is a repeatable flag of comma-separated values.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, splitList(v)...)
	return nil
}

// applyEnv sets each flag not given on the command line from its
// environment variable, if set.
func applyEnv(fs *flag.FlagSet, env [][2]string) error {
	for _, fe := range env {
		v, ok := os.LookupEnv(fe[1])
		if !ok || v == "" || flagSet(fs, fe[0]) {
			continue
		}
		if err := fs.Set(fe[0], v); err != nil {
			return fmt.Errorf("$%s: %w", fe[1], err)
		}
	}
	return nil
}

func runServe(ctx context.Context, args []string, io stdio) int {
	fs := newFlags("serve", "[--config FILE] [--api ADDR] [flags]", serveHelp, io)
	var sf serveFlags
	sf.register(fs)
	if done, code := parse(fs, args, io); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "mcpchaos serve: unexpected argument %q (the config file goes after --config)\n", fs.Arg(0))
		return exitUsage
	}
	if err := applyEnv(fs, serveEnv()); err != nil {
		fmt.Fprintf(io.err, "mcpchaos serve: %v\n", err)
		return exitUsage
	}
	log, err := newLogger(io.err, sf.logFormat, sf.logLevel)
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos serve: %v\n", err)
		return exitUsage
	}
	p, err := sf.plan(fs)
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos serve: %v\n", err)
		return exitUsage
	}
	reg := inject.New(p.inject)
	// Upstreams of protocol mcp are MCP fronts whose calls this recorder
	// keeps; the API reads it, wrappers report to it.
	grader := grade.New(reg, grade.Options{LoopThreshold: sf.loopThreshold, LoopWindow: sf.loopWindow,
		Internal: grade.UpstreamValues(reg)})
	defer grader.Close()
	live := front.NewRecorder(reg, front.RecorderOptions{Logger: log, Grader: grader})
	defer live.Close()
	reg.UseFront(inject.ProtocolMCP, live.NewFront)
	p.api.Live, p.api.LiveGrader = live, grader
	if err := p.cfg.Apply(reg); err != nil {
		_ = reg.Close()
		fmt.Fprintf(io.err, "mcpchaos serve: %v\n", err)
		return exitUsage
	}
	for _, u := range reg.Upstreams() {
		log.Info().Str("upstream", u.Name).Str("protocol", u.Protocol).Str("listen", u.Listen).Str("target", u.Target).Msg("proxy listening")
		if inject.ListensOnAllInterfaces(u.Listen) {
			log.Warn().Str("upstream", u.Name).Str("listen", u.Listen).Msg(api.ListenAllWarning(u.Name, u.Listen))
		}
	}
	return serveUntilDone(ctx, reg, p, log)
}

// servePlan is what the settings resolve to.
type servePlan struct {
	cfg     *config.File
	inject  inject.Options
	apiAddr string // "" when off
	api     api.Options
	grace   time.Duration // Registry.Shutdown's drain
}

// plan resolves the settings: the config file first, then what flags or
// environment variables set.
func (s *serveFlags) plan(fs *flag.FlagSet) (servePlan, error) {
	p := servePlan{cfg: &config.File{}, grace: s.grace}
	if s.grace < 0 {
		return p, fmt.Errorf("--shutdown-grace %v: must not be negative", s.grace)
	}
	if s.cfgPath != "" {
		cfg, err := config.Load(s.cfgPath)
		if err != nil {
			return p, err
		}
		p.cfg = cfg
	}
	p.inject = inject.Options{Seed: 1, DefaultTTL: p.cfg.DefaultTTL, MaxTTL: p.cfg.MaxTTL}
	if p.cfg.Seed != nil {
		p.inject.Seed = *p.cfg.Seed
	}
	if flagSet(fs, "seed") && s.seed != 0 {
		p.inject.Seed = s.seed
	}
	if flagSet(fs, "default-ttl") && s.defTTL != 0 {
		p.inject.DefaultTTL = s.defTTL
	}
	if flagSet(fs, "max-ttl") && s.maxTTL != 0 {
		p.inject.MaxTTL = s.maxTTL
	}
	if p.inject.MaxTTL == 0 && p.inject.DefaultTTL >= 0 { // default_ttl: never opts out of expiry
		p.inject.MaxTTL = api.DefaultMaxTTL
	}
	if s.maxFault <= 0 {
		return p, fmt.Errorf("--max-fault-duration: must be positive, not %v", s.maxFault)
	}
	p.inject.Limits.MaxDuration = s.maxFault
	token, err := s.resolveToken()
	if err != nil {
		return p, err
	}
	var allow *api.Allowlist
	if len(s.allow) > 0 {
		if allow, err = api.ParseAllowlist(s.allow); err != nil {
			return p, fmt.Errorf("--allow: %w", err)
		}
	}
	// The API's default TTL follows the registry's unless that is
	// "never", which the API does not offer.
	p.api = api.Options{Token: token, Allow: allow, DefaultTTL: max(p.inject.DefaultTTL, 0),
		MaxTTL: p.inject.MaxTTL, EnableRuns: s.runs}
	if s.apiAddr != "off" {
		if err := api.CheckBind(s.apiAddr, token); err != nil {
			return p, fmt.Errorf("--api: %w", err)
		}
		p.apiAddr = s.apiAddr
	}
	return p, nil
}

// resolveToken reads the token from --token or --token-file (or their
// environment variables) and refuses one that no client could send.
func (s *serveFlags) resolveToken() (string, error) {
	if s.tokenFile == "" {
		if err := api.CheckToken(s.token); err != nil {
			return "", fmt.Errorf("--token (or MCPCHAOS_TOKEN): %w", err)
		}
		return s.token, nil
	}
	if s.token != "" {
		return "", errors.New("--token and --token-file are both set; give one")
	}
	data, err := os.ReadFile(s.tokenFile)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	// One trailing newline is how files end; anything else around the
	// token is refused by CheckToken rather than silently trimmed.
	tok := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	if strings.TrimSpace(tok) == "" {
		return "", fmt.Errorf("--token-file: %s is empty or blank", s.tokenFile)
	}
	if err := api.CheckToken(tok); err != nil {
		return "", fmt.Errorf("--token-file %s: %w", s.tokenFile, err)
	}
	return tok, nil
}

// serveUntilDone runs the registry's sweeper and the API until ctx is
// done, then shuts down: the API first (runs and streams end), then every
// fault is removed, then the proxies close.
func serveUntilDone(ctx context.Context, reg *inject.Registry, p servePlan, log zerolog.Logger) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	apiErr := make(chan error, 1)
	if p.apiAddr == "" {
		apiErr <- nil
	} else {
		ln, err := net.Listen("tcp", p.apiAddr)
		if err != nil {
			log.Error().Err(err).Msg("control API: cannot listen")
			_ = reg.Close()
			return exitFailed
		}
		opts := p.api
		opts.Logger = log
		if opts.RunOptions, err = builtinRunOptions(p.inject.Seed, 2); err != nil {
			log.Warn().Err(err).Msg("runs cannot use {{ mcpchaos }}")
		}
		srv := api.New(reg, opts)
		go func() {
			err := srv.Serve(ctx, ln)
			cancel() // a failed API stops the proxies too: nothing runs unsupervised
			apiErr <- err
		}()
		log.Info().Str("api", ln.Addr().String()).Bool("token", opts.Token != "").Str("allow", opts.Allow.String()).
			Msg("control API listening")
	}
	log.Info().Int("rules", reg.Table().Load().Len()).Uint64("seed", p.inject.Seed).Msg("serving; interrupt to stop")
	runErr := reg.Run(ctx)
	cancel()
	serveErr := <-apiErr
	code := shutdown(reg, log, runErr, p.grace)
	if serveErr != nil {
		log.Error().Err(serveErr).Msg("control API")
		code = exitFailed
	}
	return code
}

// shutdown heals every connection, lets what is in flight finish within
// grace, then closes the proxies.
func shutdown(reg *inject.Registry, log zerolog.Logger, runErr error, grace time.Duration) int {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	n, err := reg.Shutdown(ctx)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		log.Warn().Dur("grace", grace).Msg("connections still open after the shutdown grace were closed")
	case err != nil:
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
