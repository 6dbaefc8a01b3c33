package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
)

// Probe counts a side effect from outside the fault layer, before and
// after the run: an HTTP GET whose JSON reply an expression turns into a
// number, or a command that prints a number. URL and command arguments
// may use {{ target "name" }} (the real upstream, not faulted) and
// {{ upstream "name" }}.
type Probe struct {
	HTTP string
	// Expr reads the reply as `body` (and its HTTP status as `status`)
	// and yields a number (or a bool: 1 or 0).
	Expr    string
	Command []string
	Timeout time.Duration

	prog *vm.Program
}

// probeEnv is what a probe's expression reads.
type probeEnv struct {
	Body   any `expr:"body"`
	Status int `expr:"status"`
}

func decodeProbe(n config.Node, sc *Scenario) (*Probe, error) {
	m, err := n.Mapping("http", "expr", "command", "timeout")
	if err != nil {
		return nil, err
	}
	p := &Probe{}
	if p.HTTP, err = m.Get("http").String(); err != nil {
		return nil, err
	}
	if p.Command, err = m.Get("command").Strings(); err != nil {
		return nil, err
	}
	if p.Timeout, err = m.Get("timeout").Duration(); err != nil {
		return nil, err
	}
	if p.Timeout == 0 {
		p.Timeout = defaultProbeTimeout
	}
	switch {
	case (p.HTTP == "") == (len(p.Command) == 0):
		return nil, n.Errorf(config.ErrRequired, "give either http (a URL and an expr) or command (that prints a number)")
	case p.HTTP != "":
		if p.Expr, err = m.Get("expr").String(); err != nil {
			return nil, err
		}
		if p.prog, err = compileExpr(m.Get("expr"), p.Expr, expr.Env(probeEnv{})); err != nil {
			return nil, err
		}
	case m.Has("expr"):
		return nil, m.Get("expr").Errorf(config.ErrInvalid, "applies to http probes only; a command prints the number itself")
	}
	fake := make([]inject.UpstreamInfo, 0, len(sc.Upstreams))
	for _, u := range sc.Upstreams {
		fake = append(fake, inject.UpstreamInfo{Name: u.Name, Protocol: u.Protocol, Listen: "127.0.0.1:1", Target: u.Target})
	}
	for _, s := range append([]string{p.HTTP}, p.Command...) {
		if _, err := expandTemplate(s, fake, "mcpchaos"); err != nil {
			return nil, n.Errorf(config.ErrInvalid, "%v", err)
		}
	}
	return p, nil
}

// maxProbeBody bounds what a probe reads.
const maxProbeBody = 4 << 20

// Count runs the probe once and returns its number; ups and self fill
// its templates.
func (p *Probe) Count(ctx context.Context, ups []inject.UpstreamInfo, self string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	if p.HTTP != "" {
		return p.countHTTP(ctx, ups, self)
	}
	args := slices.Clone(p.Command)
	for i, a := range args {
		var err error
		if args[i], err = expandTemplate(a, ups, self); err != nil {
			return 0, err
		}
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("probe command: %w: %s", err, stderrEnd(stderr.String()))
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		return 0, fmt.Errorf("probe command printed %q, not a number", strings.TrimSpace(string(out)))
	}
	return int(math.Round(v)), nil
}

func (p *Probe) countHTTP(ctx context.Context, ups []inject.UpstreamInfo, self string) (int, error) {
	url, err := expandTemplate(p.HTTP, ups, self)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, fmt.Errorf("probe: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	// A fresh client: no environment proxy, no pooled connection shared
	// with anything the faults touch.
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("probe: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody))
	if err != nil {
		return 0, fmt.Errorf("probe: reading %s: %w", url, err)
	}
	var body any
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &body); err != nil {
			return 0, fmt.Errorf("probe: %s answered %d with a body that is not JSON", url, resp.StatusCode)
		}
	}
	out, err := expr.Run(p.prog, probeEnv{Body: body, Status: resp.StatusCode})
	if err != nil {
		return 0, fmt.Errorf("probe expr: %w", err)
	}
	return probeNumber(out)
}

// probeNumber converts an expression's result to a count.
func probeNumber(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case float64:
		return int(math.Round(x)), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("probe expr yields %T, not a number", v)
}

// stderrEnd is the last three lines a failed probe command wrote to
// stderr, on one line.
func stderrEnd(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-3):], " | ")
}
