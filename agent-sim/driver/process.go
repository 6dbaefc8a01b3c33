package driver

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// stderrTail is how much of a server's stderr is kept: enough for a panic
// message and the top of its stack, bounded for servers that log a lot.
const stderrTail = 4 << 10

// stderrRing keeps the last stderrTail bytes written to it.
type stderrRing struct {
	mu  sync.Mutex
	buf []byte
}

// Write implements io.Writer; it never fails, so the server is never
// blocked or killed by a full stderr.
func (t *stderrRing) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= stderrTail {
		t.buf = append(t.buf[:0], p[len(p)-stderrTail:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - stderrTail; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

func (t *stderrRing) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// serverProc is a stdio server. The driver owns its pipes and its Wait,
// rather than leaving them to mcp.CommandTransport, which only waits in
// Close: a call in flight must learn of the exit when it happens, with
// the exit status, to report server_exit instead of a silent hang.
type serverProc struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end
	stdout *os.File // our end
	stderr *stderrRing
	cancel context.CancelFunc     // kills the process group
	exited chan struct{}          // closed when Wait has returned
	exit   transcript.ProcessExit // set before exited is closed
}

// startProcess starts spec's command with its stdin and stdout on pipes.
func startProcess(spec ServerSpec, grace time.Duration) (*serverProc, error) {
	// The context is the kill switch of last resort, used by stop after
	// stdin EOF and SIGTERM were ignored; it is not tied to any caller's
	// context because the server outlives Connect.
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = os.Environ()
	for k, v := range spec.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &serverProc{cmd: cmd, stderr: &stderrRing{}, cancel: cancel, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	// Bounds how long Wait waits for stderr after the exit, should a
	// grandchild keep it open.
	cmd.WaitDelay = grace
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd, syscall.SIGKILL) }

	inR, inW, err := os.Pipe()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cancel()
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	// The child has its own copies; ours must go, or stdout never ends.
	inR.Close()
	outW.Close()
	if err != nil {
		cancel()
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %q: %w", spec.Command[0], err)
	}
	p.stdin, p.stdout = inW, outR
	go p.wait()
	return p, nil
}

func (p *serverProc) wait() {
	err := p.cmd.Wait()
	p.exit = transcript.ProcessExit{Exited: true, Code: -1, StderrTail: p.stderr.String()}
	if ps := p.cmd.ProcessState; ps != nil {
		p.exit.Code = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.exit.Signal = ws.Signal().String()
		}
	} else if err != nil {
		p.exit.StderrTail += "\n" + err.Error()
	}
	close(p.exited)
}

// status returns the exit, or a ProcessExit with Exited false and the
// stderr so far while the process runs.
func (p *serverProc) status() transcript.ProcessExit {
	select {
	case <-p.exited:
		return p.exit
	default:
		return transcript.ProcessExit{StderrTail: p.stderr.String()}
	}
}

// exitedWithin reports whether the process exits within d.
func (p *serverProc) exitedWithin(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// stop ends the process the way the MCP spec asks (close stdin, then
// SIGTERM, then SIGKILL), each step given grace, and returns its exit. It
// always returns: after SIGKILL it waits at most grace more.
func (p *serverProc) stop(grace time.Duration) transcript.ProcessExit {
	defer p.cancel()
	p.stdin.Close()
	if !p.exitedWithin(grace) {
		_ = killGroup(p.cmd, syscall.SIGTERM)
		if !p.exitedWithin(grace) {
			p.cancel()
			p.exitedWithin(grace + time.Second)
		}
	}
	p.stdout.Close()
	// A grandchild may still hold the process group: it goes too.
	_ = killGroup(p.cmd, syscall.SIGKILL)
	return p.status()
}

// describeExit says how a process ended, for messages.
func describeExit(e transcript.ProcessExit) string {
	if !e.Exited {
		return "still running"
	}
	s := fmt.Sprintf("exit code %d", e.Code)
	if e.Signal != "" {
		s = "killed by " + e.Signal
	}
	return s
}

var errNoCommand = errors.New("server command is empty")
