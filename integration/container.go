package integration

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// startContainer creates the container, copies the config file into it,
// joins the networks and starts it. Start's pool.RunWithOptions cannot be
// used: it pulls a missing image, and a file can only be copied into a
// container between its creation and its start.
func startContainer(ctx context.Context, pool *dockertest.Pool, o Options) (*dockertest.Resource, error) {
	if _, err := pool.Client.InspectImage(o.Image); err != nil {
		if errors.Is(err, dc.ErrNoSuchImage) {
			return nil, fmt.Errorf("%w: %s is not in the Docker engine and is never pulled; "+
				"build it with `make image` in the mcpchaos repository, or `docker load -i mcpchaos.tar` (docs/dockertest.md)", ErrNoImage, o.Image)
		}
		return nil, fmt.Errorf("integration: inspecting image %s: %w", o.Image, err)
	}
	cmd := []string{"serve"}
	if o.Config != "" {
		cmd = append(cmd, "--config", ConfigPath)
	}
	cmd = append(cmd, o.Args...)
	// The token goes in the environment, not the command line: a flag
	// shows in `docker inspect`'s Cmd and in ps.
	// Runs are off in serve by default (they run commands on the host);
	// this container exists for RunScenario, so it turns them on through
	// the environment, where Args ("--runs=false") can still win.
	env := append([]string{"MCPCHAOS_TOKEN=" + o.Token, "MCPCHAOS_RUNS=true"}, o.Env...)
	ports := append([]string{APIPort}, o.ExposedPorts...)
	exposed := map[dc.Port]struct{}{}
	bindings := map[dc.Port][]dc.PortBinding{}
	for _, p := range ports {
		if !strings.Contains(p, "/") {
			p += "/tcp"
		}
		exposed[dc.Port(p)] = struct{}{}
		// A random host port, on loopback when the engine is local: the
		// API and the proxies break things on purpose and need not be
		// reachable from the network.
		bindings[dc.Port(p)] = []dc.PortBinding{{HostIP: bindIP(pool), HostPort: ""}}
	}
	hc := &dc.HostConfig{PortBindings: bindings, ExtraHosts: o.ExtraHosts}
	var netcfg *dc.NetworkingConfig
	if len(o.Networks) > 0 {
		// Engines before API 1.44 accept a single network at creation;
		// the others are connected before the start.
		first := o.Networks[0].Network
		hc.NetworkMode = first.Name
		netcfg = &dc.NetworkingConfig{EndpointsConfig: map[string]*dc.EndpointConfig{first.Name: {}}}
	}
	c, err := pool.Client.CreateContainer(dc.CreateContainerOptions{
		Name:             o.Name,
		Config:           &dc.Config{Image: o.Image, Cmd: cmd, Env: env, ExposedPorts: exposed, Labels: o.Labels},
		HostConfig:       hc,
		NetworkingConfig: netcfg,
		Context:          ctx,
	})
	if err != nil {
		return nil, fmt.Errorf("integration: creating container %s: %w", o.Name, err)
	}
	remove := func() {
		_ = pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: c.ID, Force: true, RemoveVolumes: true})
	}
	for _, n := range o.Networks[min(1, len(o.Networks)):] {
		if err := pool.Client.ConnectNetwork(n.Network.ID, dc.NetworkConnectionOptions{Container: c.ID}); err != nil {
			remove()
			return nil, fmt.Errorf("integration: connecting %s to network %s: %w", o.Name, n.Network.Name, err)
		}
	}
	if o.Config != "" {
		if err := pool.Client.UploadToContainer(c.ID, dc.UploadToContainerOptions{
			InputStream: bytes.NewReader(configTar(o.Config)), Path: "/"}); err != nil {
			remove()
			return nil, fmt.Errorf("integration: copying the config into %s: %w", o.Name, err)
		}
	}
	if err := pool.Client.StartContainerWithContext(c.ID, nil, ctx); err != nil {
		remove()
		return nil, fmt.Errorf("integration: starting %s: %w", o.Name, err)
	}
	// ContainerByName is the only way to get a Resource that dockertest's
	// own methods (Close, Exec) work on. Docker matches the name as a
	// regular expression against "/NAME".
	res, ok := pool.ContainerByName("^/" + regexp.QuoteMeta(o.Name) + "$")
	if !ok || res.Container.ID != c.ID {
		remove()
		return nil, fmt.Errorf("integration: container %s vanished after its start", o.Name)
	}
	return res, nil
}

// configTar is a tar archive of the config file at ConfigPath, readable
// by the image's user.
func configTar(config string) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	now := time.Now()
	dir := strings.TrimPrefix(ConfigPath[:strings.LastIndex(ConfigPath, "/")], "/")
	// Writes to a bytes.Buffer do not fail.
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "etc/", Mode: 0o755, ModTime: now})
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: now, Uid: UID, Gid: UID})
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(ConfigPath, "/"), Mode: 0o444,
		Size: int64(len(config)), ModTime: now, Uid: UID, Gid: UID})
	_, _ = tw.Write([]byte(config))
	_ = tw.Close()
	return b.Bytes()
}

// engineHost is the Docker engine's host name when it is reached over
// TCP ("" for a local socket): published ports are on that machine.
func engineHost(pool *dockertest.Pool) string {
	u, err := url.Parse(pool.Client.Endpoint())
	if err != nil || (u.Scheme != "tcp" && u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return u.Hostname()
}

// bindIP is the host address ports are published on: loopback for a local
// engine, every interface for a remote one (or the test could not reach
// them).
func bindIP(pool *dockertest.Pool) string {
	if engineHost(pool) != "" {
		return ""
	}
	return "127.0.0.1"
}

// hostPort returns where res's containerPort is published, as seen from
// this process.
func hostPort(pool *dockertest.Pool, res *dockertest.Resource, containerPort string) string {
	if res == nil || res.Container == nil || res.Container.NetworkSettings == nil {
		return ""
	}
	b := res.Container.NetworkSettings.Ports[dc.Port(containerPort)]
	if len(b) == 0 {
		return ""
	}
	ip := b[0].HostIP
	if ip == "" || ip == "0.0.0.0" || ip == "::" {
		ip = "127.0.0.1"
		if h := engineHost(pool); h != "" {
			ip = h
		}
	}
	return net.JoinHostPort(ip, b[0].HostPort)
}

// containerLogs returns a container's stdout and stderr (tail: "all" or a
// number of lines).
func containerLogs(ctx context.Context, pool *dockertest.Pool, id, tail string) (string, error) {
	var b bytes.Buffer
	err := pool.Client.Logs(dc.LogsOptions{Context: ctx, Container: id, OutputStream: &b, ErrorStream: &b,
		Stdout: true, Stderr: true, Tail: tail})
	if err != nil {
		return b.String(), fmt.Errorf("integration: logs of %s: %w", id, err)
	}
	return b.String(), nil
}
