package frontbench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/bench/internal/sysproc"
)

// startTimeout bounds how long a program may take to come up.
const startTimeout = 15 * time.Second

// bg is a program running for the whole benchmark (the HTTP server, the
// serve in front of it), stopped by stop.
type bg struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startBG(bin string, args ...string) (*bg, io.Reader, io.Reader, error) {
	cmd := exec.Command(bin, args...)
	sysproc.Tie(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("start %s: %w", filepath.Base(bin), err)
	}
	return &bg{cmd: cmd, done: make(chan struct{})}, out, errOut, nil
}

// wait reaps the process once its output was read.
func (b *bg) wait() {
	_ = b.cmd.Wait()
	close(b.done)
}

func (b *bg) stop() {
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}

// startHTTPServer starts `frontbench serve-http` and returns its URL.
func startHTTPServer(self string) (*bg, string, error) {
	b, out, errOut, err := startBG(self, "serve-http")
	if err != nil {
		return nil, "", err
	}
	go func() { _, _ = io.Copy(io.Discard, errOut) }()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, out)
		b.wait()
	}()
	select {
	case url, ok := <-lines:
		if !ok {
			b.stop()
			return nil, "", fmt.Errorf("serve-http printed no URL")
		}
		return b, url, nil
	case <-time.After(startTimeout):
		b.stop()
		return nil, "", fmt.Errorf("serve-http did not come up")
	}
}

// startServe starts `mcpchaos serve` with an mcp upstream in front of
// target and returns the front's URL and the API's.
func startServe(mcpchaos, dir, target string) (*bg, string, string, error) {
	cfg := filepath.Join(dir, "front.yaml")
	doc := fmt.Sprintf("upstreams:\n  - name: live\n    protocol: mcp\n    listen: 127.0.0.1:0\n    target: %s\n", target)
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		return nil, "", "", err
	}
	b, out, errOut, err := startBG(mcpchaos, "serve", "--config", cfg, "--api", "127.0.0.1:0", "--log-format", "json")
	if err != nil {
		return nil, "", "", err
	}
	type addrs struct{ front, api string }
	found := make(chan addrs, 1)
	go func() {
		var a addrs
		sc := bufio.NewScanner(errOut)
		for sc.Scan() {
			var line struct {
				Msg                   string `json:"message"`
				Upstream, Listen, API string
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			switch {
			case line.Msg == "proxy listening" && line.Upstream == "live":
				a.front = "http://" + line.Listen + "/mcp"
			case line.Msg == "control API listening":
				a.api = "http://" + line.API
			}
			if a.front != "" && a.api != "" {
				found <- a
				break
			}
		}
		_, _ = io.Copy(io.Discard, errOut)
		close(found)
	}()
	go func() {
		_, _ = io.Copy(io.Discard, out)
		b.wait()
	}()
	select {
	case a, ok := <-found:
		if !ok {
			b.stop()
			return nil, "", "", fmt.Errorf("serve ended before its front and API listened")
		}
		return b, a.front, a.api, nil
	case <-time.After(startTimeout):
		b.stop()
		return nil, "", "", fmt.Errorf("serve did not come up")
	}
}

// stdioSession runs argv as a stdio MCP server under a go-sdk client.
type stdioSession struct {
	cmd *exec.Cmd
	cs  *mcp.ClientSession
	err *tail
}

func startStdio(ctx context.Context, argv ...string) (*stdioSession, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	sysproc.Tie(cmd)
	s := &stdioSession{cmd: cmd, err: &tail{}}
	cmd.Stderr = s.err
	t := &mcp.CommandTransport{Command: cmd} // it starts cmd: its pid is known once connected
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	cs, err := client().Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w (stderr: %s)", strings.Join(argv, " "), err, s.err)
	}
	s.cs = cs
	return s, nil
}

func (s *stdioSession) close() { _ = s.cs.Close() }

func client() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "frontbench-client", Version: "1"}, nil)
}

// tail keeps the last bytes a process wrote to stderr.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
