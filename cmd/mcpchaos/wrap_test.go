package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/mcptest"
)

// waitFor polls cond until it holds, for at most 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); !cond(); <-tick.C {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s", what)
		}
	}
}

// session is the test MCP server as a host runs it: directly, or behind
// the real mcpchaos wrap (this test binary acting as mcpchaos), with a
// go-sdk client on its stdio that copies every byte it writes and reads.
type session struct {
	cmd                 *exec.Cmd
	cs                  *mcp.ClientSession
	clientOut, clientIn *lockedBuffer
	stderr              *lockedBuffer
	dir                 string // the server's own transcript
	progress            chan *mcp.ProgressNotificationParams
}

func startSession(t *testing.T, wrapped bool, wrapArgs ...string) *session {
	t.Helper()
	s := &session{clientOut: &lockedBuffer{}, clientIn: &lockedBuffer{}, stderr: &lockedBuffer{}, dir: t.TempDir(),
		progress: make(chan *mcp.ProgressNotificationParams, 16)}
	args := []string{mcptest.ServeArg}
	if wrapped {
		args = append(append(append([]string{"wrap"}, wrapArgs...), "--", os.Args[0]), args...)
	}
	s.cmd = exec.Command(os.Args[0], args...)
	s.cmd.Env = append(os.Environ(), asMainEnv+"=1", mcptest.TranscriptEnv+"="+s.dir)
	s.cmd.Stderr = s.stderr
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
		}
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "transcript-host", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { s.progress <- r.Params }})
	tr := &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(stdout, s.clientIn)), Writer: teeCloser{stdin, s.clientOut}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s.cs, err = client.Connect(ctx, tr, nil); err != nil {
		t.Fatalf("connect (wrapped %v): %v; stderr %s", wrapped, err, s.stderr)
	}
	return s
}

// teeCloser copies what is written to w into tee.
type teeCloser struct {
	w   io.WriteCloser
	tee io.Writer
}

func (t teeCloser) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	_, _ = t.tee.Write(p[:n])
	return n, err
}

func (t teeCloser) Close() error { return t.w.Close() }

// script is the transcript's session: a list, every channel, progress, a
// request from the server (a ping mid-call, answered by the client), a
// cancellation, and a server that exits mid-call. Each step waits for the
// bytes it causes, so the transcript is the same from run to run.
func (s *session) script(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{mcptest.ToolEcho, map[string]any{"text": "hi"}}, {mcptest.ToolFail, nil}, {mcptest.ToolRPCError, nil},
		{mcptest.ToolProgress, map[string]any{"steps": 3}}, {mcptest.ToolPing, nil}} {
		p := &mcp.CallToolParams{Name: c.tool, Arguments: c.args}
		p.SetProgressToken("tok-" + c.tool)
		_, _ = s.cs.CallTool(ctx, p)
	}
	bctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p := &mcp.CallToolParams{Name: mcptest.ToolBlock}
		p.SetProgressToken("tok-block")
		_, _ = s.cs.CallTool(bctx, p)
	}()
	for p := range s.progress {
		if p.ProgressToken == "tok-block" {
			break
		}
	}
	cancel()
	<-done
	// The server answers a cancelled call with an error: wait for it.
	waitFor(t, "the cancelled call's answer", func() bool { return strings.Contains(s.clientIn.String(), "context canceled") })
	if _, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: mcptest.ToolExit, Arguments: map[string]any{"code": 3}}); err == nil {
		t.Error("a call whose server exited succeeded")
	}
}

// end closes the client and returns the process's exit.
func (s *session) end(t *testing.T) *os.ProcessState {
	t.Helper()
	_ = s.cs.Close()
	err := s.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return s.cmd.ProcessState
}

func (s *session) serverSaw(t *testing.T) (in, out string) {
	t.Helper()
	a, err := os.ReadFile(s.dir + "/server.in")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.dir + "/server.out")
	if err != nil {
		t.Fatal(err)
	}
	return string(a), string(b)
}

// TestWrapTranscript: the bytes the client and the server exchange are
// the same with and without wrap, both ways, through a list, every
// channel, notifications both ways (progress, cancelled), a
// request from the server, a cancellation and a server that exits
// mid-call; the host sees the server's stderr and its exit status.
func TestWrapTranscript(t *testing.T) {
	var runs [2]struct {
		clientOut, clientIn, serverIn, serverOut, stderr string
		exit                                             int
	}
	for i, wrapped := range []bool{false, true} {
		s := startSession(t, wrapped)
		s.script(t)
		state := s.end(t)
		r := &runs[i]
		r.clientOut, r.clientIn, r.stderr, r.exit = s.clientOut.String(), s.clientIn.String(), s.stderr.String(), state.ExitCode()
		r.serverIn, r.serverOut = s.serverSaw(t)
		if r.clientOut != r.serverIn {
			t.Errorf("wrapped %v: the server read\n%s\nthe client wrote\n%s", wrapped, r.serverIn, r.clientOut)
		}
		if r.clientIn != r.serverOut {
			t.Errorf("wrapped %v: the client read\n%s\nthe server wrote\n%s", wrapped, r.clientIn, r.serverOut)
		}
		if r.exit != 3 {
			t.Errorf("wrapped %v: exit %v, want the server's 3", wrapped, state)
		}
	}
	direct, wrapped := runs[0], runs[1]
	if direct.clientOut != wrapped.clientOut || direct.clientIn != wrapped.clientIn {
		t.Errorf("the transcript differs with wrap:\ndirect out %q\nwrapped out %q\ndirect in %q\nwrapped in %q",
			direct.clientOut, wrapped.clientOut, direct.clientIn, wrapped.clientIn)
	}
	if direct.stderr != wrapped.stderr || !strings.Contains(wrapped.stderr, "mcptest: exiting 3 mid-call") {
		t.Errorf("stderr: direct %q, wrapped %q", direct.stderr, wrapped.stderr)
	}
	for _, want := range []string{"notifications/progress", "notifications/cancelled",
		`"method":"ping"`, "the client answered the ping", `"isError":true`, `"error":{`} {
		if !strings.Contains(direct.clientIn+direct.clientOut, want) {
			t.Errorf("the transcript lacks %s", want)
		}
	}
}

// TestWrapSignals: a signal the host sends wrap reaches the server, and
// wrap ends as the server did: with the status the server exits with
// (SIGTERM: 42), or of the signal that killed it.
func TestWrapSignals(t *testing.T) {
	for _, tc := range []struct {
		sig    syscall.Signal
		exit   int            // -1: killed by the signal
		killed syscall.Signal // when exit is -1
	}{{syscall.SIGTERM, 42, 0}, {syscall.SIGINT, -1, syscall.SIGINT}, {syscall.SIGHUP, -1, syscall.SIGHUP}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			s := startSession(t, true)
			if err := s.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err := s.cmd.Wait()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			state := s.cmd.ProcessState
			ws := state.Sys().(syscall.WaitStatus)
			switch {
			case tc.exit >= 0 && state.ExitCode() != tc.exit:
				t.Errorf("exit %v, want %d; stderr %s", state, tc.exit, s.stderr)
			case tc.exit < 0 && (!ws.Signaled() || ws.Signal() != tc.killed):
				t.Errorf("exit %v, want killed by %v; stderr %s", state, tc.killed, s.stderr)
			}
			if tc.sig == syscall.SIGTERM && !strings.Contains(s.stderr.String(), "mcptest: SIGTERM") {
				t.Errorf("the server did not get SIGTERM: %s", s.stderr)
			}
			_ = s.cs.Close()
		})
	}
}

// TestWrapTamperFlags: --tamper builds one expiring rule of kind tamper;
// a bad mode or expression, or --tamper-when alone, is a usage error
// naming what is wrong.
func TestWrapTamperFlags(t *testing.T) {
	for _, tc := range []struct {
		w   wrapFlags
		err string // "" for none
	}{
		{wrapFlags{tamper: "drop", tamperTTL: time.Minute, when: `tool == "x"`}, ""},
		{wrapFlags{tamper: "protocol_error", tamperTTL: time.Minute, tamperCode: -32000}, ""},
		{wrapFlags{tamper: "nope", tamperTTL: time.Minute}, "fault.mode"},
		{wrapFlags{tamper: "drop", tamperTTL: time.Minute, when: `tool ==`}, "unexpected"},
		{wrapFlags{when: `tool == "x"`}, "--tamper-when needs --tamper"},
		{wrapFlags{tamper: "drop"}, "--tamper-ttl"},
	} {
		table, err := tc.w.tamperTable()
		switch {
		case tc.err == "" && (err != nil || table == nil || table.Load().Len() != 1):
			t.Errorf("%+v: %v", tc.w, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%+v: %v, want %q", tc.w, err, tc.err)
		}
		if table != nil {
			if r, st := table.Load().Rule(0); st.Expires().IsZero() || r.Fault.Params["mode"] != tc.w.tamper {
				t.Errorf("%+v: rule %+v does not expire", tc.w, r)
			}
		}
	}
	if table, err := (&wrapFlags{}).tamperTable(); table != nil || err != nil {
		t.Errorf("no --tamper: %v %v", table, err)
	}
}
