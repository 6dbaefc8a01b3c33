package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// exitSettle is how long a failed stdio call waits for the process's exit
// status: the pipe breaks a moment before the kernel reports the exit.
const exitSettle = 500 * time.Millisecond

// Call calls a tool and classifies what came back. It never takes longer
// than the call timeout plus the late grace (plus a brief liveness probe
// after a timeout). Once the server has exited or stopped answering
// altogether, later calls return the same outcome at once.
func (s *Session) Call(ctx context.Context, tool string, args map[string]any) transcript.Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	o := s.call(ctx, tool, args, start)
	if o.Elapsed == 0 {
		o.Elapsed = time.Since(start)
	}
	if o.Channel == transcript.ChannelSuccess && o.Text != "" && transcript.ReadReply(o.Channel, 0, o.Text, o.Structured, s.tools, tool).Upstream.Set {
		o.UpstreamErrorAsSuccess = true
	}
	return o
}

type callResult struct {
	res *mcp.CallToolResult
	err error
}

func (s *Session) call(ctx context.Context, tool string, args map[string]any, start time.Time) transcript.Outcome {
	if s.dead != nil {
		return *s.dead
	}
	if s.cs == nil || s.isClosed() {
		return transcript.Outcome{Channel: transcript.ChannelTransportError, Text: "session closed"}
	}
	s.http.reset()
	// The SDK's context outlives the host's deadline by the late grace:
	// ending it sends notifications/cancelled, and a server told to
	// cancel has nothing late to say. The host's deadline is the timer.
	cctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout+s.opts.LateGrace)
	defer cancel()
	deadline := time.NewTimer(s.opts.CallTimeout)
	defer deadline.Stop()
	var exited <-chan struct{}
	if s.proc != nil {
		exited = s.proc.exited
	}
	ch := make(chan callResult, 1)
	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
		if args == nil {
			args = map[string]any{}
		}
		res, err := s.cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		ch <- callResult{res, err}
	}()
	select {
	case r := <-ch:
		if r.err == nil {
			return resultOutcome(r.res)
		}
		return s.classify(ctx, cctx, r.err, start)
	case <-exited:
		return s.markDead(s.exitOutcome())
	case <-deadline.C:
		return s.timedOut(ctx, start, &lateWait{ch: ch, exited: exited, cctx: cctx, start: start})
	case <-cctx.Done():
		// The caller's context ended. The SDK returns promptly once its
		// context ends; a write blocked on a server that stopped reading
		// does not, and is ended by Close.
		return s.timedOut(ctx, start, nil)
	}
}

// classify turns a failed call into an outcome.
func (s *Session) classify(ctx, cctx context.Context, err error, start time.Time) transcript.Outcome {
	if werr := serverWireError(err); werr != nil {
		return transcript.Outcome{Channel: transcript.ChannelProtocolError, Code: int(werr.Code), Text: werr.Message}
	}
	if s.proc != nil && s.proc.exitedWithin(exitSettle) {
		return s.markDead(s.exitOutcome())
	}
	if cctx.Err() != nil {
		return s.timedOut(ctx, start, nil)
	}
	o := transcript.Outcome{Channel: transcript.ChannelTransportError, Text: err.Error()}
	if s.http != nil {
		o.Code = s.http.lastStatus()
		if o.Code > 0 {
			o.Text = fmt.Sprintf("HTTP %d %s", o.Code, http.StatusText(o.Code))
		}
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || s.proc != nil || s.http != nil && o.Code <= 0 {
		// The connection is gone: a stdio server that closed stdout, an
		// HTTP session the SDK gave up on, or an HTTP request that got no
		// status at all (the connection dropped or was refused).
		o.Text = "connection closed: " + o.Text
		return s.crashed(o)
	}
	return o
}

// timedOut reports a call that got no answer in time. A ping tells a
// server that is wedged (no later call can succeed: mark the session
// dead) from one whose handler for this call hung (a retry may succeed,
// and may commit a side effect again). With a late grace and w set, it
// then keeps listening for the reply (see awaitLate).
func (s *Session) timedOut(ctx context.Context, start time.Time, w *lateWait) transcript.Outcome {
	o := transcript.Outcome{Channel: transcript.ChannelNoResponse, Text: fmt.Sprintf("no response within %s", s.opts.CallTimeout),
		Elapsed: time.Since(start)}
	if ctx.Err() != nil {
		o.Text = "call cancelled: " + ctx.Err().Error()
		return o
	}
	if s.proc != nil {
		select {
		case <-s.proc.exited:
			return s.markDead(s.exitOutcome())
		default:
		}
	}
	pctx, cancel := context.WithTimeout(ctx, min(time.Second, s.opts.CallTimeout))
	defer cancel()
	err := s.cs.Ping(pctx, nil)
	if err != nil && serverWireError(err) == nil && ctx.Err() == nil {
		o.Text += " (the server no longer answers ping)"
		return s.markDead(o)
	}
	if w != nil && s.opts.LateGrace > 0 {
		late, died := s.awaitLate(w)
		if died != nil {
			return *died
		}
		o.Late = late
	}
	return o
}

// localWireErrors are the SDK's own sentinels: JSON-RPC error values the
// client makes up (a transport rejection, a closing connection), which no
// server sent. They are recognised by code and message because the
// sentinels live in an internal package.
var localWireErrors = map[int64]string{
	-32003: "client is closing",
	-32004: "server is closing",
	-32005: "rejected by transport",
}

// serverWireError returns the first JSON-RPC error in err's chain that the
// server sent, or nil.
func serverWireError(err error) *jsonrpc.Error {
	var found *jsonrpc.Error
	var walk func(error) bool
	walk = func(e error) bool {
		for e != nil {
			if w, ok := e.(*jsonrpc.Error); ok && localWireErrors[w.Code] != w.Message {
				found = w
				return true
			}
			switch u := e.(type) {
			case interface{ Unwrap() []error }:
				for _, x := range u.Unwrap() {
					if walk(x) {
						return true
					}
				}
				return false
			case interface{ Unwrap() error }:
				e = u.Unwrap()
			default:
				return false
			}
		}
		return false
	}
	walk(err)
	return found
}

// exitOutcome is the outcome of a call during which the process ended,
// with the crash evidence.
func (s *Session) exitOutcome() transcript.Outcome {
	exit := s.proc.status()
	return transcript.Outcome{Channel: transcript.ChannelServerExit, Code: exit.Code, Text: "server process ended: " + describeExit(exit),
		Crash: &transcript.Crash{Exit: describeExit(exit), StderrTail: crashExcerpt(exit.StderrTail)}}
}

// markDead records o as the answer to every later call.
func (s *Session) markDead(o transcript.Outcome) transcript.Outcome {
	d := o
	s.dead = &d
	return o
}

// Process returns what is known of a stdio server's process: its exit
// once it has ended, the stderr tail so far otherwise. It is the zero
// value for an HTTP server.
func (s *Session) Process() transcript.ProcessExit {
	if s.proc == nil {
		return transcript.ProcessExit{}
	}
	return s.proc.status()
}

// resultOutcome classifies a result the server sent.
func resultOutcome(res *mcp.CallToolResult) transcript.Outcome {
	o := transcript.Outcome{Channel: transcript.ChannelSuccess, Text: resultText(res)}
	if res != nil && res.IsError {
		o.Channel = transcript.ChannelToolError
	}
	if res != nil && res.StructuredContent != nil && len(res.Content) > 0 {
		if b, err := json.Marshal(res.StructuredContent); err == nil && len(b) <= maxStructuredBytes {
			o.Structured = b
		}
	}
	return o
}

// maxStructuredBytes bounds the structuredContent a call record keeps:
// the reader parses no more than this.
const maxStructuredBytes = 64 << 10

// resultText joins the text content; other content is named in
// brackets, and structured content stands in when there is no text.
func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var parts []string
	for _, c := range res.Content {
		switch v := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, v.Text)
		case *mcp.EmbeddedResource:
			if v.Resource != nil && v.Resource.Text != "" {
				parts = append(parts, v.Resource.Text)
			} else {
				parts = append(parts, "[resource]")
			}
		case *mcp.ResourceLink:
			parts = append(parts, "[resource link "+v.URI+"]")
		case *mcp.ImageContent:
			parts = append(parts, "[image]")
		case *mcp.AudioContent:
			parts = append(parts, "[audio]")
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// lastLines returns at most n final lines of s, trimmed.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
