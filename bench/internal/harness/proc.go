package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/ready"
	"github.com/mcpchaos/mcpchaos/bench/internal/sysproc"
)

// How long a program may take to come up and to go down.
const (
	startTimeout = 15 * time.Second
	stopTimeout  = 3 * time.Second
)

// proc is a program the harness started.
type proc struct {
	name   string
	cmd    *exec.Cmd
	stderr *tail
	done   chan struct{} // closed when the process has been reaped
	err    error         // Wait's result, once done is closed
}

// startProc starts bin with args (and env added to the harness's) and,
// if awaitReady, waits for its ready line and returns its addresses.
func startProc(ctx context.Context, name, bin string, args, env []string, awaitReady bool) (*proc, map[string]string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	sysproc.Tie(cmd)
	p := &proc{name: name, cmd: cmd, stderr: &tail{max: 4096}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	// A plain pipe rather than StdoutPipe: its reader may outlive Wait.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	cmd.Stdout = w
	err = cmd.Start()
	_ = w.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if !awaitReady {
		return p, nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	addrs, err := ready.Await(ctx, r)
	if err != nil {
		p.stop()
		return nil, nil, fmt.Errorf("%s did not come up: %w (stderr: %s)", name, err, p.stderr)
	}
	return p, addrs, nil
}

// pid is the process id, whose /proc entries are read for CPU and memory.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// stop asks the process to exit (SIGTERM), kills it if it has not within
// stopTimeout, and waits until it is reaped.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(stopTimeout)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// alive reports an error if the process has exited.
func (p *proc) alive() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited: %v (stderr: %s)", p.name, p.err, p.stderr)
	default:
		return nil
	}
}

// tail keeps the last max bytes written to it: enough of a program's
// stderr to explain a failure, never an unbounded buffer.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
