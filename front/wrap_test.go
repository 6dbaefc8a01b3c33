package front

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/internal/mcptest"
	"github.com/mcpchaos/mcpchaos/rules"
)

// lockedBuffer is a buffer written by a subprocess's stderr copier.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// wrapped is the test server run by Wrap in process, with a go-sdk
// client on the host's side of the pipes.
type wrapped struct {
	cs       *mcp.ClientSession
	stderr   *lockedBuffer
	done     chan struct{}
	state    *os.ProcessState
	err      error
	progress chan *mcp.ProgressNotificationParams
}

func startWrapped(t *testing.T, opts WrapOptions) *wrapped {
	t.Helper()
	w := &wrapped{stderr: &lockedBuffer{}, done: make(chan struct{}), progress: make(chan *mcp.ProgressNotificationParams, 16)}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mcptest.ServeEnv+"=1")
	cmd.Stderr = w.stderr
	hostR, wrapIn, err := os.Pipe() // host → wrap
	if err != nil {
		t.Fatal(err)
	}
	wrapOut, hostW, err := os.Pipe() // wrap → host
	if err != nil {
		t.Fatal(err)
	}
	// Wrap reads hostR (wrapIn's other end) and writes hostW.
	go func() {
		defer close(w.done)
		w.state, w.err = Wrap(context.Background(), cmd, hostR, hostW, opts)
		_ = hostW.Close()
	}()
	t.Cleanup(func() {
		_ = wrapIn.Close()
		<-w.done
		_, _ = hostR.Close(), wrapOut.Close()
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "mcptest-client", Version: "1.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case w.progress <- r.Params:
			default:
			}
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w.cs, err = client.Connect(ctx, &mcp.IOTransport{Reader: wrapOut, Writer: wrapIn}, nil)
	if err != nil {
		t.Fatalf("connect through wrap: %v (server stderr: %s)", err, w.stderr)
	}
	return w
}

// call calls tool with args (and a progress token when tok is set).
func (w *wrapped) call(ctx context.Context, tool string, args map[string]any, tok string) (*mcp.CallToolResult, error) {
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	if tok != "" {
		p.SetProgressToken(tok)
	}
	return w.cs.CallTool(ctx, p)
}

// finish ends the session from the host's side and waits for Wrap.
func (w *wrapped) finish(t *testing.T) *os.ProcessState {
	t.Helper()
	_ = w.cs.Close()
	<-w.done
	if w.err != nil {
		t.Fatalf("Wrap: %v", w.err)
	}
	return w.state
}

// TestWrapRecordsCalls: every channel a live call can come back in over
// stdio, its attempt, progress, a request from the server mid-call and a
// cancellation, with the session's implementations, as a Sink sees them.
func TestWrapRecordsCalls(t *testing.T) {
	sink := newCaptureSink()
	w := startWrapped(t, WrapOptions{Sink: sink, Session: "s1"})
	ctx := context.Background()
	if _, err := w.cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if res, err := w.call(ctx, mcptest.ToolEcho, map[string]any{"text": "hi"}, ""); err != nil || res.IsError {
			t.Fatalf("echo: %v %+v", err, res)
		}
	}
	if _, err := w.call(ctx, mcptest.ToolEcho, map[string]any{"text": "other"}, ""); err != nil {
		t.Fatal(err)
	}
	if res, err := w.call(ctx, mcptest.ToolFail, nil, ""); err != nil || !res.IsError {
		t.Fatalf("fail: %v %+v", err, res)
	}
	var werr *jsonrpc.Error
	if _, err := w.call(ctx, mcptest.ToolRPCError, nil, ""); !errors.As(err, &werr) {
		t.Fatalf("rpcerror: %v", err)
	}
	if _, err := w.call(ctx, mcptest.ToolProgress, map[string]any{"steps": 3}, "p1"); err != nil {
		t.Fatal(err)
	}
	// The server's own request (its ID may equal a call's) is not a reply.
	if res, err := w.call(ctx, mcptest.ToolPing, nil, ""); err != nil || res.IsError {
		t.Fatalf("ping: %v %+v", err, res)
	}
	bctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := w.call(bctx, mcptest.ToolBlock, nil, "b1")
		errc <- err
	}()
	for p := range w.progress {
		if p.ProgressToken == "b1" {
			break
		}
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("block: %v", err)
	}
	sink.waitFor(t, "the cancelled call", func(s *captureSink) bool { return len(s.ended) == 8 })
	state := w.finish(t)
	if state.ExitCode() != 0 {
		t.Errorf("exit %v; stderr %s", state, w.stderr)
	}

	want := []string{
		`s1#1 echo attempt 1: success 0 "hi"`,
		`s1#2 echo attempt 2: success 0 "hi"`,
		`s1#3 echo attempt 1: success 0 "other"`,
		`s1#4 fail attempt 1: tool_error 0 "the order was not created: upstream timeout"`,
		`s1#5 rpcerror attempt 1: protocol_error ` + strconv.Itoa(int(werr.Code)) + ` "rpcerror: always fails"`,
		`s1#6 progress attempt 1: success 0 "3 steps done"`,
		`s1#7 ping attempt 1: success 0 "the client answered the ping"`,
		`s1#8 block attempt 1: no_response 0 ""`,
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	for i, c := range sink.ended {
		if i >= len(want) || c.String() != want[i] {
			t.Errorf("call %d: %s", i+1, c)
			continue
		}
		if c.N != 100+i+1 {
			t.Errorf("call %d: N %d, want the sink's number %d", i+1, c.N, 101+i)
		}
	}
	if p := sink.ended[5].Progress; p != 3 {
		t.Errorf("progress call: %d notifications, want 3", p)
	}
	if d := sink.ended[7].Detail; !strings.HasPrefix(d, "cancelled by the client") {
		t.Errorf("block: detail %q", d)
	}
	if sink.ended[0].Args["text"] != "hi" || sink.ended[0].Elapsed <= 0 {
		t.Errorf("echo: args %v elapsed %v", sink.ended[0].Args, sink.ended[0].Elapsed)
	}
	if len(sink.opened) != 1 || len(sink.closed) != 1 {
		t.Fatalf("sessions: opened %v closed %v", sink.opened, sink.closed)
	}
	s := sink.closed[0]
	if len(sink.updated) != 1 || len(s.Tools) != 8 || s.Tools[0].Name != mcptest.ToolBlock || s.Tools[0].Description != "test tool block" {
		t.Errorf("tools: %d updates, %+v", len(sink.updated), s.Tools)
	}
	if s.Client != "mcptest-client 1.0" || s.Server != "mcptest 1.0.0" || s.Protocol == "" || s.Calls != 8 ||
		s.Transport != "stdio" || s.Front != WrapFront || !strings.Contains(s.Reason, "the client closed stdin") {
		t.Errorf("session %+v", s)
	}
}

// TestWrapServerExitMidCall: the open call ends in server_exit with the
// exit status, the session says why, and Wrap returns that status.
func TestWrapServerExitMidCall(t *testing.T) {
	sink := newCaptureSink()
	w := startWrapped(t, WrapOptions{Sink: sink, Session: "s2"})
	if _, err := w.call(context.Background(), mcptest.ToolExit, map[string]any{"code": 3}, ""); err == nil {
		t.Fatal("a call whose server exited succeeded")
	}
	state := w.finish(t)
	if state.ExitCode() != 3 {
		t.Errorf("exit %v, want 3", state)
	}
	got := sink.byTool(mcptest.ToolExit)
	if len(got) != 1 || got[0].Channel != ChannelServerExit || got[0].Code != 3 || !strings.Contains(got[0].Text, "exit status 3") {
		t.Fatalf("calls %v", got)
	}
	if len(sink.closed) != 1 || !strings.Contains(sink.closed[0].Reason, "server exited: exit status 3") {
		t.Errorf("sessions closed %+v", sink.closed)
	}
	if !strings.Contains(w.stderr.String(), "mcptest: exiting 3 mid-call") {
		t.Errorf("server stderr %q", w.stderr)
	}
}

// TestWrapTamper: a tamper rule sends a tool error to the host as a
// JSON-RPC error, another drops a first attempt's reply; a success the
// first rule matches passes and is not counted against it.
func TestWrapTamper(t *testing.T) {
	table := rules.NewTable(rules.TableOptions{ParseFault: inject.ParseFault})
	for _, r := range []rules.Rule{
		{Name: "as-error", Fault: rules.FaultSpec{Kind: "tamper", Params: map[string]any{"mode": "protocol_error", "code": -32000}}},
		{Name: "drop-first", When: `tool == "echo" && attempt == 1 && session == "s3"`, Fault: rules.FaultSpec{Kind: "tamper", Params: map[string]any{"mode": "drop"}}},
	} {
		if _, err := table.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	sink := newCaptureSink()
	w := startWrapped(t, WrapOptions{Sink: sink, Session: "s3", Tamper: table})
	ctx := context.Background()
	var werr *jsonrpc.Error
	if _, err := w.call(ctx, mcptest.ToolFail, nil, ""); !errors.As(err, &werr) || werr.Code != -32000 ||
		werr.Message != "the order was not created: upstream timeout" {
		t.Fatalf("fail through as-error: %v", err)
	}
	dctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err := w.call(dctx, mcptest.ToolEcho, map[string]any{"text": "x"}, "")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a dropped reply reached the host: %v", err)
	}
	if res, err := w.call(ctx, mcptest.ToolEcho, map[string]any{"text": "x"}, ""); err != nil || res.IsError {
		t.Fatalf("second attempt: %v %+v", err, res)
	}
	w.finish(t)
	fail, echo := sink.byTool(mcptest.ToolFail), sink.byTool(mcptest.ToolEcho)
	if len(fail) != 1 || fail[0].Channel != ChannelToolError || fail[0].Tamper == nil ||
		*fail[0].Tamper != (Tampered{Rule: "as-error", Mode: "protocol_error", Code: -32000}) || fail[0].HostChannel() != ChannelProtocolError {
		t.Errorf("fail: %+v tamper %+v", fail, fail[0].Tamper)
	}
	if len(echo) != 2 || echo[0].Tamper == nil || echo[0].Tamper.Mode != "drop" || echo[0].Channel != ChannelSuccess ||
		echo[0].HostChannel() != ChannelNoResponse || echo[1].Tamper != nil {
		t.Errorf("echo: %v", echo)
	}
	set := table.Load()
	for i := range set.Len() {
		r, st := set.Rule(i)
		if want := int64(1); st.Hits() != want {
			t.Errorf("rule %s: %d hits, want %d (a success is not a tool error to convert)", r.Name, st.Hits(), want)
		}
	}
}
