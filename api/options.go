package api

import (
	"time"

	"github.com/rs/zerolog"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/front/grade"
	"github.com/mcpchaos/mcpchaos/rules"
)

// Defaults applied by [New] to zero [Options] fields.
const (
	// DefaultMaxTTL caps a fault's TTL when Options.MaxTTL is zero: a
	// fault forgotten on a game day is gone within the hour.
	DefaultMaxTTL = time.Hour
	// DefaultMaxBodyBytes bounds a request body: a fault or an upstream
	// is a few hundred bytes, a scenario a few KiB.
	DefaultMaxBodyBytes = 1 << 20
	// DefaultAuditKeep is how many audit entries GET /v1/audit remembers.
	DefaultAuditKeep = 1000
	// DefaultRunsKeep is how many finished runs GET /v1/runs remembers.
	DefaultRunsKeep = 100
	// DefaultMaxActiveRuns is how many simulator runs may run at once; a
	// run starts MCP servers and upstreams, so a few is plenty.
	DefaultMaxActiveRuns = 2
	// DefaultEventBuffer is each event stream's buffer: a client that
	// falls further behind is dropped.
	DefaultEventBuffer = 1024
	// DefaultHeartbeat is how often an idle event stream sends a comment,
	// so proxies and load balancers do not time it out.
	DefaultHeartbeat = 15 * time.Second
	// DefaultEventStall is how long a write to an event stream may block
	// before the stream counts as stalled (see Options.EventStall).
	DefaultEventStall = 10 * time.Second
	// DefaultShutdownGrace bounds how long Serve waits for requests in
	// flight once its context is done.
	DefaultShutdownGrace = 5 * time.Second
)

// Options configures a [Server]. The zero value is usable: it logs
// nothing, needs no token (so [Server.Serve] accepts only a loopback
// listener), allows every target, refuses runs, and gives faults a
// 15-minute TTL capped at an hour.
type Options struct {
	// Logger receives request logs, the audit trail and errors; the zero
	// value logs nothing. The token is never logged.
	Logger zerolog.Logger
	// Token, when set, is required as "Authorization: Bearer TOKEN" on
	// every route but /healthz. Empty means no authentication, which
	// [CheckBind] and Serve allow on loopback only.
	Token string
	// Allow restricts the targets an upstream created or changed through
	// the API may point at; nil allows all (see [ParseAllowlist]).
	Allow *Allowlist
	// DefaultTTL is the TTL of a fault that sets none; zero means
	// [rules.DefaultTTL]. It is capped by MaxTTL.
	DefaultTTL time.Duration
	// MaxTTL is the longest TTL a fault may ask for; zero means
	// [DefaultMaxTTL]. A longer ttl is refused (400), not silently cut.
	MaxTTL time.Duration
	// Clock stamps audit entries and runs; nil means the system clock.
	// Fault expiry is the registry's clock (inject.Options.Clock).
	Clock rules.Clock
	// RunOptions is the template of every run POST /v1/runs starts: its
	// Builtins and Self make builtin:NAME targets and {{ mcpchaos }}
	// available; Seed is the default seed (zero: 1). Personas, Hosts and
	// Progress are set per run.
	RunOptions agentsim.RunOptions
	// Live records the live MCP traffic of mcp upstreams and of `mcpchaos
	// wrap --report` (/v1/live/*). Nil means a recorder of the server's
	// own, with front.RecorderOptions' defaults, which it installs as the
	// registry's MCP front and closes with the server; give one to share
	// it with upstreams created before the server (a config file's).
	Live *front.Recorder
	// LiveGrader is Live's grader, which GET /v1/live/report grades
	// sessions with. Nil with a nil Live means one of the server's own
	// (grade.Options' defaults); nil with a Live given means the report
	// grades with a grader of its own over the registry's bus, which
	// knows only the upstream traffic from its start.
	LiveGrader *grade.Live
	// EnableRuns allows POST /v1/runs. It is off by default because it
	// lets API clients run commands on this host: a scenario names the
	// command the server starts (and probe commands). Off, POST /v1/runs
	// answers 403 with code runs_disabled.
	EnableRuns bool
	// MaxBodyBytes bounds request bodies (413 beyond); zero means
	// [DefaultMaxBodyBytes].
	MaxBodyBytes int64
	// EventStall is how long a write to an event stream may block (the
	// client stopped reading) before the stream counts as stalled: it is
	// counted in mcpchaos_api_event_streams_dropped_total at once, the
	// frame being written is finished and followed by an event "dropped",
	// and the stream is closed; a client that never reads again is cut a
	// minute later. Zero means [DefaultEventStall].
	EventStall time.Duration
	// AuditKeep, RunsKeep, MaxActiveRuns, EventBuffer, Heartbeat and
	// ShutdownGrace default to the constants of the same name.
	AuditKeep     int
	RunsKeep      int
	MaxActiveRuns int
	EventBuffer   int
	Heartbeat     time.Duration
	ShutdownGrace time.Duration
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = rules.SystemClock{}
	}
	if o.MaxTTL <= 0 {
		o.MaxTTL = DefaultMaxTTL
	}
	if o.DefaultTTL <= 0 {
		o.DefaultTTL = rules.DefaultTTL
	}
	o.DefaultTTL = min(o.DefaultTTL, o.MaxTTL)
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.AuditKeep <= 0 {
		o.AuditKeep = DefaultAuditKeep
	}
	if o.RunsKeep <= 0 {
		o.RunsKeep = DefaultRunsKeep
	}
	if o.MaxActiveRuns <= 0 {
		o.MaxActiveRuns = DefaultMaxActiveRuns
	}
	if o.EventBuffer <= 0 {
		o.EventBuffer = DefaultEventBuffer
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.EventStall <= 0 {
		o.EventStall = DefaultEventStall
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = DefaultShutdownGrace
	}
	if o.RunOptions.Seed == 0 {
		o.RunOptions.Seed = 1
	}
	return o
}
