package api

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/inject"
)

// Stand-ins for addresses a run creates itself, used only to check a
// scenario's templates against the allowlist: a proxy forwards only to
// its (checked) target, and a built-in upstream is a loopback service
// the run starts. ".invalid" never resolves (RFC 2606).
const (
	proxyStandIn   = "proxy.mcpchaos.invalid:1"
	builtinStandIn = "builtin.mcpchaos.invalid:1"
)

// checkRunTargets applies the allowlist to every address a run of sc
// dials: each upstream's target, the server's url and each side effect's
// probe URL (templates filled as the run would fill them). A denial is a
// 400 naming the field, and is audited. What a command dials (the
// server's, a probe's) is beyond it: docs/api.md says so.
func (s *Server) checkRunTargets(r *http.Request, sc *scenario.Scenario) error {
	if s.opts.Allow == nil {
		return nil
	}
	ups := make([]inject.UpstreamInfo, len(sc.Upstreams))
	for i, u := range sc.Upstreams {
		field := fmt.Sprintf("upstreams[%d].target", i)
		ups[i] = inject.UpstreamInfo{Name: u.Name, Protocol: u.Protocol, Listen: proxyStandIn, Target: u.Target}
		if u.Forward != nil {
			// The run's forward upstream (server.proxy_env) checks each
			// host its server names, and the address resolve gives it.
			u.Forward.Allow = s.opts.Allow.Allows
			continue
		}
		if strings.HasPrefix(u.Target, scenario.BuiltinPrefix) {
			ups[i].Target = builtinStandIn
			if u.Protocol == inject.ProtocolHTTP {
				ups[i].Target = "http://" + builtinStandIn
			}
			continue
		}
		spec := u.Spec()
		addr, err := spec.TargetAddr()
		if err == nil && !s.opts.Allow.Allows(addr) {
			err = fmt.Errorf("target %s is not in the server's allowlist (%s)", addr, s.opts.Allow)
		}
		if err != nil {
			return s.denyRun(r, sc, field, err)
		}
	}
	if sc.Server.URL != "" {
		if err := s.checkRunURL(sc, sc.Server.URL, ups); err != nil {
			return s.denyRun(r, sc, "server.url", err)
		}
	}
	for i, se := range sc.SideEffects {
		if se.Probe == nil || se.Probe.HTTP == "" {
			continue
		}
		if err := s.checkRunURL(sc, se.Probe.HTTP, ups); err != nil {
			return s.denyRun(r, sc, fmt.Sprintf("side_effects[%d].probe.http", i), err)
		}
	}
	return nil
}

// checkRunURL fills raw's templates with the stand-ins and checks the
// address it dials.
func (s *Server) checkRunURL(sc *scenario.Scenario, raw string, ups []inject.UpstreamInfo) error {
	// ResolveServer is the one implementation of the scenario templates;
	// a scenario holding only this URL borrows it.
	tmp := &scenario.Scenario{Server: driver.ServerSpec{URL: raw}, Upstreams: sc.Upstreams}
	spec, err := tmp.ResolveServer(ups, "mcpchaos")
	if err != nil {
		return err
	}
	u, err := url.Parse(spec.URL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL with a host", raw)
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "http":
		port = "80"
	case u.Scheme == "https":
		port = "443"
	default:
		return fmt.Errorf("%q: scheme must be http or https", raw)
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	if addr == proxyStandIn || addr == builtinStandIn {
		return nil
	}
	if !s.opts.Allow.Allows(addr) {
		return fmt.Errorf("%s (from %q) is not in the server's allowlist (%s)", addr, raw, s.opts.Allow)
	}
	return nil
}

func (s *Server) denyRun(r *http.Request, sc *scenario.Scenario, field string, err error) error {
	s.record(r, http.StatusBadRequest, "run.denied", sc.Name, field+": "+err.Error())
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidScenario, Field: field, Message: err.Error()}
}
