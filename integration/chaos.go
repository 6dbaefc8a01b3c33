package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/ory/dockertest/v3"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/api"
)

// Defaults of [Options].
const (
	// DefaultImage is the image `make image` builds.
	DefaultImage = "mcpchaos:dev"
	// ImageEnv names the variable that sets the default image, so that CI
	// can test another tag without changing the tests.
	ImageEnv = "MCPCHAOS_IMAGE"
	// APIPort is the control API's port inside the container.
	APIPort = "7777/tcp"
	// ConfigPath is where [Options.Config] is written in the container.
	ConfigPath = "/etc/mcpchaos/config.yaml"
	// UID is the user id the image runs as; the config file is owned by it.
	UID = 65532
)

// ErrNoImage is returned by [Start] when the image is not in the Docker
// engine: it is never pulled.
var ErrNoImage = errors.New("mcpchaos image not found")

// Options configures [Start]. The zero value starts mcpchaos:dev with no
// upstream, a random token and a random name, on Docker's default bridge.
type Options struct {
	// Image is the image to run ("name:tag"); default $MCPCHAOS_IMAGE,
	// else [DefaultImage].
	Image string
	// Name is the container's name, which is also its host name on
	// Networks: point the server under test at NAME:PORT. Default
	// "mcpchaos-" and a random suffix.
	Name string
	// Config is the YAML of a serve config file (upstreams and rules,
	// docs/api.md); it is copied into the container (not mounted, so a
	// Docker engine on another machine works too) and passed as --config.
	Config string
	// Token is the control API's token (at least 16 bytes); default a
	// random one. The API listens on the container's every interface,
	// which mcpchaos refuses without a token.
	Token string
	// Networks are user-defined networks the container joins, so that
	// containers on them reach it by Name and it reaches them by theirs.
	Networks []*dockertest.Network
	// Env adds environment variables ("KEY=value"): MCPCHAOS_LOG_LEVEL,
	// MCPCHAOS_ALLOW, ...
	Env []string
	// Args are more flags for `mcpchaos serve` ("--allow", "10.0.0.0/8").
	Args []string
	// ExposedPorts are container ports to publish on the host besides the
	// API's, like "9000/tcp" for a proxy listening on 0.0.0.0:9000, so
	// that the test itself can send requests through it ([Chaos.HostPort]).
	ExposedPorts []string
	// Labels are set on the container, on top of [Labels] (the project,
	// the run and the owning process, which [Sweep] reads).
	Labels map[string]string
	// ExtraHosts are "name:ip" entries for the container's /etc/hosts;
	// "host.docker.internal:host-gateway" makes the host reachable by
	// that name where the engine supports it (Docker 20.10 and later).
	ExtraHosts []string
}

// Chaos is a running mcpchaos container.
type Chaos struct {
	// Resource is the container, for dockertest's own helpers (Exec,
	// ConnectToNetwork, GetIPInNetwork).
	Resource *dockertest.Resource
	// Client is a typed client of the control API, with the token.
	Client *api.Client
	// APIURL is the control API's URL from the host ("http://127.0.0.1:49153").
	APIURL string
	// Name is the container's name: its host name on Options.Networks.
	Name string
	// Token is the control API's token.
	Token string

	pool *dockertest.Pool
	// id is the container's ID (Resource.Container.ID).
	id        string
	closeOnce sync.Once
	closeErr  error

	// mu guards last, the report of the latest run, which a failed test
	// prints ([StartT]).
	mu   sync.Mutex
	last *report.Report
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() (Options, error) {
	if o.Image == "" {
		o.Image = os.Getenv(ImageEnv)
	}
	if o.Image == "" {
		o.Image = DefaultImage
	}
	if o.Name == "" {
		o.Name = "mcpchaos-" + randomHex(6)
	}
	if o.Token == "" {
		o.Token = randomHex(16)
	}
	if len(o.Token) < api.MinTokenBytes {
		return o, fmt.Errorf("integration: the token must be at least %d bytes long", api.MinTokenBytes)
	}
	o.Labels = withLabels(o.Labels)
	for i, n := range o.Networks {
		if n == nil || n.Network == nil {
			return o, fmt.Errorf("integration: Networks[%d] is nil", i)
		}
	}
	return o, nil
}

// randomHex returns n random bytes, hex-encoded.
func randomHex(n int) string {
	b := make([]byte, n)
	// crypto/rand.Read never fails (it panics first).
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Start runs mcpchaos serve in a container from opts.Image and waits
// until its API answers with the token: until ctx ends, and at most
// pool.MaxWait (a minute by default). On error nothing is left running.
// In a test, [StartT] does this and the cleanup.
//
// The image must already be in the engine: it is never pulled (build it
// with `make image`, or `docker load` it); its absence is [ErrNoImage].
func Start(ctx context.Context, pool *dockertest.Pool, opts Options) (*Chaos, error) {
	if pool == nil || pool.Client == nil {
		return nil, errors.New("integration: no dockertest pool")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	res, err := startContainer(ctx, pool, opts)
	if err != nil {
		return nil, err
	}
	c := &Chaos{Resource: res, Name: opts.Name, Token: opts.Token, pool: pool, id: res.Container.ID}
	if err := c.connect(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// connect builds the client and waits for the API.
func (c *Chaos) connect(ctx context.Context) error {
	hp := c.HostPort(APIPort)
	if hp == "" {
		// An exited container has no ports: say why it exited.
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
		defer cancel()
		if err := c.checkRunning(ictx); err != nil {
			return fmt.Errorf("integration: %w", err)
		}
		return fmt.Errorf("integration: the API port %s of %s is not published", APIPort, c.Name)
	}
	c.APIURL = "http://" + hp
	cl, err := api.NewClient(c.APIURL, api.ClientOptions{Token: c.Token, Actor: "integration"})
	if err != nil {
		return fmt.Errorf("integration: %w", err)
	}
	c.Client = cl
	return c.waitReady(ctx)
}

// HostPort returns the host address ("127.0.0.1:49153") a container port
// ("9000/tcp", or "9000") is published on, or "" when it is not
// published (list it in Options.ExposedPorts).
func (c *Chaos) HostPort(containerPort string) string {
	if !strings.Contains(containerPort, "/") {
		containerPort += "/tcp"
	}
	return hostPort(c.pool, c.Resource, containerPort)
}

// Addr returns NAME:PORT, the address containers on the same network use
// to reach a proxy listening on port inside this container.
func (c *Chaos) Addr(port int) string {
	return net.JoinHostPort(c.Name, fmt.Sprint(port))
}

// Close removes the container and its volumes (dockertest's Purge). It
// may be called more than once; once it has been, the other methods
// report the container gone.
func (c *Chaos) Close() error {
	if c == nil || c.Resource == nil {
		return nil
	}
	c.closeOnce.Do(func() {
		if err := c.pool.Purge(c.Resource); err != nil {
			c.closeErr = fmt.Errorf("integration: removing %s: %w", c.Name, err)
		}
	})
	return c.closeErr
}

// Logs returns the container's output so far (serve logs JSON lines),
// for a failing test to print.
func (c *Chaos) Logs(ctx context.Context) (string, error) {
	return containerLogs(ctx, c.pool, c.id, "all")
}
