package front

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// WrapFront is the name a wrapped server's front goes by: in its
// sessions' Front, and as the upstream a tamper rule for it names.
const WrapFront = "wrap"

// DefaultExitDrain is how long [Wrap] keeps reading the server's stdout
// after the server exited: a process it started may still hold it open.
const DefaultExitDrain = 2 * time.Second

// WrapOptions configures [Wrap]. The zero value records nothing, tampers
// with nothing and forwards no signal.
type WrapOptions struct {
	// Sink receives the session and its calls; nil means [Discard].
	Sink Sink
	// Tamper holds the rules that may tamper with replies (kind tamper,
	// upstream empty or "wrap"); nil means none.
	Tamper *rules.Table
	// Limits bound what is parsed and kept.
	Limits Limits
	// Clock times calls; nil means the system clock.
	Clock rules.Clock
	// Session is the session's ID; empty means "wrap-PID-START" (this
	// process's ID and start time in Unix milliseconds).
	Session string
	// Signals are forwarded to the server while it runs (SIGINT, SIGTERM,
	// SIGHUP for a host that stops its servers so): Wrap does not act on
	// them itself, the server decides.
	Signals []os.Signal
	// ExitDrain bounds how long the server's stdout is read after it
	// exited; zero means [DefaultExitDrain].
	ExitDrain time.Duration
}

// Wrap runs cmd as an MCP stdio server between in and out: every frame the
// host writes to in reaches the server's stdin, every frame the server
// writes reaches out, byte for byte and in order, while the session's
// tools/call requests are recorded into opts.Sink. cmd.Stderr is the
// caller's (give it the host's stderr: it is passed on untouched); Wrap
// sets cmd's Stdin and Stdout. Wrap returns once the server has exited and
// its output has been delivered, with its exit state; the error is set
// only when the server could not be started or waited for.
//
// The server runs in a process group of its own (on Unix), so that a
// signal reaches it once: forwarded from opts.Signals. When the host
// closes in, the server's stdin is closed. When the server
// exits, its open calls end in channel server_exit (Code: the exit
// status) and the session closes. If in can be interrupted (it has
// SetReadDeadline, like a pipe or a non-blocking stdin) Wrap stops
// reading it before returning; otherwise the goroutine reading it ends
// when in does.
func Wrap(ctx context.Context, cmd *exec.Cmd, in io.Reader, out io.Writer, opts WrapOptions) (*os.ProcessState, error) {
	if opts.Sink == nil {
		opts.Sink = Discard{}
	}
	if opts.Clock == nil {
		opts.Clock = rules.SystemClock{}
	}
	if opts.ExitDrain <= 0 {
		opts.ExitDrain = DefaultExitDrain
	}
	lim := opts.Limits.withDefaults()
	if opts.Session == "" {
		opts.Session = fmt.Sprintf("wrap-%d-%d", os.Getpid(), opts.Clock.Now().UnixMilli())
	}
	p, err := startPiped(cmd)
	if err != nil {
		return nil, err
	}
	info := Session{ID: opts.Session, Front: WrapFront, Transport: "stdio", Command: cmd.Args, Start: opts.Clock.Now()}
	sess := newSession(info, opts.Sink, newTamperer(opts.Tamper, WrapFront), opts.Clock, lim)

	stopSignals := forwardSignals(cmd.Process, opts.Signals)
	defer stopSignals()
	var wg sync.WaitGroup
	var hostEOF atomic.Bool
	downDone := make(chan struct{})
	wg.Add(2)
	go func() {
		defer wg.Done()
		err := pump(p.inW, in, lim.MaxFrame, func(f []byte) reply {
			if msgs := parseFrame(f); msgs != nil {
				sess.expire() // as an HTTP front does on each request
				sess.fromClient(msgs)
			}
			return reply{}
		})
		hostEOF.Store(err == nil)
		_ = p.inW.Close() // the server sees the host's EOF
	}()
	go func() {
		defer wg.Done()
		defer close(downDone)
		_ = pump(out, p.outR, lim.MaxFrame, func(f []byte) reply {
			if msgs := parseFrame(f); msgs != nil {
				return sess.fromServer(msgs, true)
			}
			return reply{}
		})
		// If the host stopped reading, the server's next write fails, as
		// it would have without the wrapper.
		_ = p.outR.Close()
	}()
	stopCtx := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	defer stopCtx()

	waitErr := cmd.Wait()
	// Deliver what the server wrote before it exited, within the drain.
	select {
	case <-downDone:
	case <-time.After(opts.ExitDrain):
		_ = p.outR.SetReadDeadline(time.Now())
		<-downDone
	}
	state := cmd.ProcessState
	reason := "server exited: " + describeExit(state)
	if hostEOF.Load() {
		reason = "the client closed stdin; " + reason
	}
	sess.close(reason, Call{Channel: ChannelServerExit, Code: exitCode(state),
		Text: "server process ended: " + describeExit(state), Detail: "the server exited during the call"})
	if stopReading(in) {
		wg.Wait()
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		return state, fmt.Errorf("wait for the server: %w", waitErr)
	}
	return state, nil
}

// piped holds the parent's ends of the server's stdin and stdout pipes.
type piped struct {
	inW, outR *os.File
}

// startPiped starts cmd with a pipe on its stdin and stdout. The pipes
// are os.Pipe's (not cmd.StdinPipe's): exec then copies nothing itself,
// and the read end can be given a deadline.
func startPiped(cmd *exec.Cmd) (piped, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return piped{}, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_, _ = inR.Close(), inW.Close()
		return piped{}, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	ownGroup(cmd)
	err = cmd.Start()
	// The child has its own copies; the parent's would hide EOF.
	_, _ = inR.Close(), outW.Close()
	if err != nil {
		_, _ = inW.Close(), outR.Close()
		return piped{}, fmt.Errorf("start the server: %w", err)
	}
	return piped{inW: inW, outR: outR}, nil
}

// forwardSignals relays sigs to proc until the returned function is
// called.
func forwardSignals(proc *os.Process, sigs []os.Signal) (stop func()) {
	if len(sigs) == 0 {
		return func() {}
	}
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case s := <-ch:
				_ = proc.Signal(s)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
		wg.Wait()
	}
}

// stopReading ends a read in progress on r and reports whether it could
// (r has a read deadline that works).
func stopReading(r io.Reader) bool {
	d, ok := r.(interface{ SetReadDeadline(time.Time) error })
	return ok && d.SetReadDeadline(time.Now()) == nil
}

// describeExit says how a process ended: "exit status 3", "signal: killed".
func describeExit(s *os.ProcessState) string {
	if s == nil {
		return "unknown"
	}
	return s.String()
}

// exitCode is the exit status, or -1 for a process ended by a signal.
func exitCode(s *os.ProcessState) int {
	if s == nil {
		return -1
	}
	return s.ExitCode()
}
