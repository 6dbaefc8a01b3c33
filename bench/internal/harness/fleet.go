package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"
)

// Roles: what an address carries. The upstream serves http, bulk and
// echo; a proxy forwards each of those as TCP, and mcpchaos also forwards
// http through its HTTP reverse proxy as web.
const (
	roleHTTP = "http"
	roleBulk = "bulk"
	roleEcho = "echo"
	roleWeb  = "web"
	roleFwd  = "forward" // mcpchaos's forward upstream, to any role's address
)

// Kinds of program the harness starts.
const (
	kindUpstream = "upstream"
	kindPlain    = "plain proxy"
	kindMcpchaos = "mcpchaos"
	kindToxi     = "toxiproxy"
)

// instance is one running program: the upstream or a proxy.
type instance struct {
	kind  string
	p     *proc
	addrs map[string]string // role → listening address
	ctl   controller        // nil when the program has no control plane
}

func (i *instance) stop() {
	if i != nil && i.p != nil {
		i.p.stop()
	}
}

// launcher starts programs against one upstream.
type launcher struct {
	cfg *Config
	up  map[string]string // the upstream's role → address
}

// launch starts a program of kind serving roles.
func (l *launcher) launch(ctx context.Context, kind string, roles ...string) (*instance, error) {
	switch kind {
	case kindPlain:
		var args []string
		for _, r := range roles {
			if r == roleWeb {
				return nil, errors.New("the plain proxy has no HTTP mode")
			}
			args = append(args, "-tcp", r+"="+l.up[r])
		}
		p, addrs, err := startProc(ctx, kind, filepath.Join(l.cfg.BinDir, "plainproxy"), args, nil, true)
		if err != nil {
			return nil, err
		}
		return &instance{kind: kind, p: p, addrs: addrs}, nil
	case kindMcpchaos:
		var args []string
		for _, r := range roles {
			if r == roleFwd {
				args = append(args, "-forward", r)
				continue
			}
			if r == roleWeb {
				args = append(args, "-http", r+"=http://"+l.up[roleHTTP])
			} else {
				args = append(args, "-tcp", r+"="+l.up[r])
			}
		}
		p, addrs, err := startProc(ctx, kind, filepath.Join(l.cfg.BinDir, "mcpchaos-proxy"), args, nil, true)
		if err != nil {
			return nil, err
		}
		return &instance{kind: kind, p: p, addrs: addrs, ctl: mcpControl{newRESTClient(addrs["control"])}}, nil
	case kindToxi:
		return l.launchToxiproxy(ctx, roles)
	}
	return nil, fmt.Errorf("unknown program kind %q", kind)
}

// launchToxiproxy starts toxiproxy-server with LOG_LEVEL=error (it logs
// every connection otherwise) and creates one proxy per role through its
// REST API, each on a free port.
func (l *launcher) launchToxiproxy(ctx context.Context, roles []string) (*instance, error) {
	if l.cfg.Toxiproxy == "" {
		return nil, errors.New("no toxiproxy-server configured")
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p, _, err := startProc(ctx, kindToxi, l.cfg.Toxiproxy,
		[]string{"-host", "127.0.0.1", "-port", strconv.Itoa(port)}, []string{"LOG_LEVEL=error"}, false)
	if err != nil {
		return nil, err
	}
	c := newRESTClient(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	inst := &instance{kind: kindToxi, p: p, addrs: map[string]string{}, ctl: toxiControl{c}}
	if err := waitAPI(ctx, c, p); err != nil {
		inst.stop()
		return nil, err
	}
	for _, r := range roles {
		var out struct {
			Listen string `json:"listen"`
		}
		err := c.call(ctx, "POST", "/proxies", map[string]any{
			"name": r, "listen": "127.0.0.1:0", "upstream": l.up[r], "enabled": true,
		}, &out)
		if err == nil && out.Listen == "" {
			err = errors.New("no listen address in the answer")
		}
		if err != nil {
			inst.stop()
			return nil, fmt.Errorf("toxiproxy: create proxy %s: %w", r, err)
		}
		inst.addrs[r] = out.Listen
	}
	return inst, nil
}

// waitAPI polls Toxiproxy's /version until it answers, at most startTimeout.
func waitAPI(ctx context.Context, c *restClient, p *proc) error {
	const step = 50 * time.Millisecond
	for range int(startTimeout / step) {
		if err := p.alive(); err != nil {
			return err
		}
		if c.call(ctx, "GET", "/version", nil, nil) == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(step):
		}
	}
	return fmt.Errorf("toxiproxy API did not answer within %v (stderr: %s)", startTimeout, p.stderr)
}

// freePort asks the kernel for a free loopback port. Toxiproxy's API
// cannot listen on port 0 and report it, so there is a short window in
// which another process could take the port; startup then fails loudly.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
