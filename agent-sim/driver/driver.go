package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol versions the driver can ask for. The empty string negotiates:
// the driver offers the newest (stateless 2026-07-28, via server/discover)
// and falls back to the legacy initialize handshake, as the SDK does.
const (
	ProtocolStateless = "2026-07-28"
	Protocol20251125  = "2025-11-25"
	Protocol20250618  = "2025-06-18"
)

// ServerSpec says how to reach the MCP server under test: a command run
// over stdio, or a Streamable HTTP URL.
type ServerSpec struct {
	// Command is the program and its arguments; relative paths are
	// resolved against Dir, or the working directory.
	Command []string
	// Env is added to the environment mcpchaos runs in.
	Env map[string]string
	// Dir is the server's working directory.
	Dir string
	// URL is a Streamable HTTP endpoint; Headers are sent with every
	// request (Authorization, tenant headers).
	URL     string
	Headers map[string]string
	// Protocol is the MCP protocol version to ask for: "" negotiates;
	// a version ("2025-06-18", "2025-11-25", "2026-07-28") insists on it.
	Protocol string
	// Transport, when set, connects as is: an in-process server in tests
	// and benchmarks. Command and URL are then ignored.
	Transport mcp.Transport
}

// Options tune a [Session]. The zero value is usable.
type Options struct {
	// CallTimeout bounds every tools/call; past it the call's channel is
	// no_response. Zero means 5s.
	CallTimeout time.Duration
	// ConnectTimeout bounds starting the server, the handshake and
	// tools/list. Zero means 15s (a `go run` server compiles first).
	ConnectTimeout time.Duration
	// Grace is how long Close waits at each step of stopping a stdio
	// server (stdin closed, SIGTERM, SIGKILL). Zero means 2s.
	Grace time.Duration
	// LateGrace is how long a call that got no answer within CallTimeout
	// stays open to catch a late reply (Outcome.Late) before the driver
	// cancels it. Zero means none: the call is cancelled at CallTimeout.
	LateGrace time.Duration
}

func (o Options) withDefaults() Options {
	if o.CallTimeout <= 0 {
		o.CallTimeout = 5 * time.Second
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 15 * time.Second
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	return o
}

// ErrProtocolMismatch is returned by Connect when the server would not
// speak the protocol version the spec insists on.
var ErrProtocolMismatch = errors.New("protocol version not supported by the server")

// StartError reports a server that could not be started or did not
// complete the handshake or tools/list: a run that could not happen.
type StartError struct {
	// Stage is "start", "handshake" or "tools/list".
	Stage string
	Err   error
	// Exit is what became of a stdio server (nil for HTTP).
	Exit *transcript.ProcessExit
}

func (e *StartError) Error() string {
	s := fmt.Sprintf("server %s: %v", e.Stage, e.Err)
	if e.Exit != nil && e.Exit.Exited {
		s += " (" + describeExit(*e.Exit) + ")"
	}
	if e.Exit != nil && e.Exit.StderrTail != "" {
		s += "; stderr: " + lastLines(e.Exit.StderrTail, 5)
	}
	return s
}

// Unwrap returns the cause.
func (e *StartError) Unwrap() error { return e.Err }

// Session is a connection to one MCP server. Its calls are serialised:
// the simulator is one agent making one call at a time.
type Session struct {
	opts     Options
	cs       *mcp.ClientSession
	proc     *serverProc  // stdio only
	http     *httpTripper // Streamable HTTP only
	tools    []transcript.Tool
	protocol string

	mu       sync.Mutex          // serialises calls and guards dead
	dead     *transcript.Outcome // set once the server is gone: later calls return it
	inflight sync.WaitGroup

	closeMu sync.Mutex
	closed  bool
	exit    transcript.ProcessExit
}

func (s *Session) isClosed() bool {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	return s.closed
}

// Connect starts or dials the server, completes the handshake for
// spec.Protocol and lists its tools. Nothing it does outlives
// opts.ConnectTimeout; on error the server is stopped.
func Connect(ctx context.Context, spec ServerSpec, opts Options) (*Session, error) {
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
	defer cancel()
	s := &Session{opts: opts}
	var t mcp.Transport
	switch {
	case spec.Transport != nil:
		t = spec.Transport
	case len(spec.Command) > 0 && spec.Command[0] != "":
		p, err := startProcess(spec, opts.Grace)
		if err != nil {
			return nil, &StartError{Stage: "start", Err: err}
		}
		s.proc = p
		t = &mcp.IOTransport{Reader: p.stdout, Writer: p.stdin}
		// A server that dies during the handshake must not leave the
		// handshake waiting for the whole ConnectTimeout.
		var exitCancel context.CancelFunc
		ctx, exitCancel = context.WithCancel(ctx)
		watched := make(chan struct{})
		go func(ctx context.Context) {
			defer close(watched)
			select {
			case <-p.exited:
				exitCancel()
			case <-ctx.Done():
			}
		}(ctx)
		defer func() {
			exitCancel()
			<-watched
		}()
	case spec.URL != "":
		s.http = newHTTPTripper(spec.Headers)
		t = &mcp.StreamableClientTransport{
			Endpoint:   spec.URL,
			HTTPClient: s.http.client(),
			// Reconnecting would turn a dropped connection into a long
			// wait; the simulator reports it instead.
			MaxRetries: -1,
			// Server-initiated messages are not needed, and a long-lived
			// GET would outlive calls.
			DisableStandaloneSSE: true,
		}
	default:
		return nil, &StartError{Stage: "start", Err: errNoCommand}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpchaos-agent-sim", Version: "1"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: spec.Protocol})
	if err != nil {
		return nil, s.fail("handshake", err)
	}
	s.cs = cs
	if r := cs.InitializeResult(); r != nil {
		s.protocol = r.ProtocolVersion
	}
	if spec.Protocol != "" && s.protocol != spec.Protocol {
		return nil, s.fail("handshake", fmt.Errorf("%w: asked for %s, server negotiated %s", ErrProtocolMismatch, spec.Protocol, s.protocol))
	}
	if s.tools, err = listTools(ctx, cs); err != nil {
		return nil, s.fail("tools/list", err)
	}
	return s, nil
}

// waitTimeout waits for wg, at most d.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// fail stops what Connect started and describes why.
func (s *Session) fail(stage string, err error) error {
	e := &StartError{Stage: stage, Err: err}
	exit := s.Close()
	if s.proc != nil {
		e.Exit = &exit
	}
	return e
}

// Tools returns the tools the server listed.
func (s *Session) Tools() []transcript.Tool { return s.tools }

// ProtocolVersion returns the negotiated protocol version.
func (s *Session) ProtocolVersion() string { return s.protocol }

// Close ends the session and, for a stdio server, stops the process
// (stdin closed, then SIGTERM, then SIGKILL, Grace apart). It always
// returns, and returns what became of the process; calling it again
// returns the same.
func (s *Session) Close() transcript.ProcessExit {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return s.exit
	}
	s.closed = true
	if s.cs != nil {
		// The SDK's Close waits for in-flight requests; a wedged server
		// must not hold us beyond the grace period.
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = s.cs.Close()
		}()
		t := time.NewTimer(s.opts.Grace)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
	}
	if s.proc != nil {
		s.exit = s.proc.stop(s.opts.Grace)
	}
	if s.http != nil {
		s.http.close()
	}
	// A call abandoned at its deadline ends once the connection is
	// closed; wait for it so that nothing outlives the session.
	waitTimeout(&s.inflight, s.opts.Grace)
	return s.exit
}
