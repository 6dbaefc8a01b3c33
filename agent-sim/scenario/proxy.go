package scenario

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
)

// ProxyEnvName is the name of the forward upstream a scenario with
// server.proxy_env gets: `upstream: proxy` in a rule covers every host
// the server reaches through it.
const ProxyEnvName = "proxy"

// proxyFields are the server fields of the proxy environment.
var proxyFields = serverFields[6:]

// ProxyEnv is a scenario's server.proxy_env: each run starts a forward
// upstream (ProxyEnvName, in Scenario.Upstreams) and hands it to the
// server through the proxy environment (docs/proxy-env.md).
type ProxyEnv struct {
	// InterceptTLS: the forward upstream terminates tunnels with the run
	// CA, which the server is told to trust.
	InterceptTLS bool
}

// ProxyVars are the variables proxy_env sets; CA variables are added
// when intercepting (inject.CAEnvVars). NO_PROXY stays the user's.
var ProxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NODE_USE_ENV_PROXY"}

// decodeProxyEnv reads the proxy fields of the server node, and the
// upstreams entries that name destinations (hosts), into sc: with
// proxy_env, a forward upstream joins sc.Upstreams, so that rules and
// side effects may name it and its hosts.
func (sc *Scenario) decodeProxyEnv(server config.Node, hosts []config.HostEntry) error {
	m, err := server.Mapping()
	if err != nil {
		return err
	}
	on, err := m.Get("proxy_env").Bool(false)
	if err != nil {
		return err
	}
	if !on {
		for _, k := range proxyFields[1:] {
			if m.Has(k) {
				return m.Get(k).Errorf(config.ErrInvalid, "applies with proxy_env: true only")
			}
		}
		if len(hosts) > 0 {
			return hosts[0].Node().Errorf(config.ErrInvalid,
				"names a destination of the run's forward proxy (host %q): set server.proxy_env: true", hosts[0].Host)
		}
		return nil
	}
	if slices.ContainsFunc(sc.Upstreams, func(u config.Upstream) bool { return u.Name == ProxyEnvName }) {
		return m.Get("proxy_env").Errorf(config.ErrInvalid, "the run's forward upstream is named %q, which an upstream already is", ProxyEnvName)
	}
	f := &inject.ForwardSpec{}
	if f.InterceptTLS, err = m.Get("intercept_tls").Bool(false); err != nil {
		return err
	}
	cas, err := m.Get("upstream_ca").Strings()
	if err != nil {
		return err
	}
	for _, p := range cas {
		b, err := config.ReadCAFile(config.RelativeTo(server, p))
		if err != nil {
			return m.Get("upstream_ca").Errorf(config.ErrInvalid, "%v", err)
		}
		f.UpstreamCA = append(f.UpstreamCA, b...)
	}
	res, err := m.Get("resolve").Strings()
	if err != nil {
		return err
	}
	if f.Resolve, err = config.ResolveMap(res); err != nil {
		return m.Get("resolve").Errorf(config.ErrInvalid, "%v", err)
	}
	for _, h := range hosts {
		f.Hosts = append(f.Hosts, h.ForwardHost)
	}
	up, err := config.ForwardUpstream(ProxyEnvName, f, server)
	if err != nil {
		return err
	}
	sc.Upstreams = append(sc.Upstreams, up)
	sc.ProxyEnv = &ProxyEnv{InterceptTLS: f.InterceptTLS}
	return nil
}

// checkProxyServer refuses what proxy_env cannot work with: a server
// reached by url (someone else started it, with their environment) and
// an env that sets a variable proxy_env sets.
func (sc *Scenario) checkProxyServer(m config.Mapping) error {
	if sc.ProxyEnv == nil {
		return nil
	}
	if sc.Server.URL != "" {
		return m.Get("proxy_env").Errorf(config.ErrInvalid,
			"needs a server mcpchaos starts (command): a server reached by url has its own environment")
	}
	// A CA variable the env sets is kept: the run CA is appended to it.
	env, _ := m.Get("env").Mapping()
	for _, k := range ProxyVars {
		if _, ok := sc.Server.Env[k]; ok {
			return env.Get(k).Errorf(config.ErrInvalid, "is set by proxy_env; leave it out (NO_PROXY is yours to set)")
		}
	}
	return nil
}

// ProxyEnvVars are the variables the server gets for the run's forward
// upstream listening at listen, and, when it intercepts, the CA files
// written to dir for caPEM: appended to what userEnv (the scenario's
// env, then mcpchaos's own) names.
func ProxyEnvVars(listen string, caPEM []byte, dir string, userEnv map[string]string) (map[string]string, error) {
	u := "http://" + listen
	out := map[string]string{"HTTP_PROXY": u, "HTTPS_PROXY": u, "http_proxy": u, "https_proxy": u, "NODE_USE_ENV_PROXY": "1"}
	if caPEM == nil {
		return out, nil
	}
	ca, err := inject.CATrustEnv(dir, caPEM, func(k string) string {
		if v, ok := userEnv[k]; ok {
			return v
		}
		return os.Getenv(k)
	})
	if err != nil {
		return nil, fmt.Errorf("proxy_env: %w", err)
	}
	for k, v := range ca {
		out[k] = v
	}
	return out, nil
}

// ProxyListen is the run's forward upstream's address.
func ProxyListen(ups []inject.UpstreamInfo) (string, error) {
	for _, u := range ups {
		if u.Name == ProxyEnvName && u.Protocol == inject.ProtocolForward {
			return u.Listen, nil
		}
	}
	return "", fmt.Errorf("proxy_env: no forward upstream %q runs", ProxyEnvName)
}

// IsProxyName reports whether name is the run's forward upstream or one
// of its declared destinations.
func (sc *Scenario) IsProxyName(name string) bool {
	for _, u := range sc.Upstreams {
		if u.Name == ProxyEnvName && u.Forward != nil {
			if name == ProxyEnvName {
				return true
			}
			for _, h := range u.Forward.Hosts {
				if name == h.Name || (h.Name == "" && name == strings.ToLower(h.Host)) {
					return true
				}
			}
		}
	}
	return false
}

// EnsureDir returns the run's directory, made if the scenario has no
// files (the run CA's files need one); Remove removes it.
func (r *RenderedFiles) EnsureDir() (string, error) {
	if r.dir != "" {
		return r.dir, nil
	}
	dir, err := os.MkdirTemp("", "mcpchaos-files-")
	if err != nil {
		return "", fmt.Errorf("proxy_env: %w", err)
	}
	r.dir = dir
	return dir, nil
}
