package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/inject"
)

// upstreamKnown reports whether name is an upstream, enabled or not.
func (s *Server) upstreamKnown(name string) bool {
	if _, err := s.reg.Upstream(name); err == nil {
		return true
	}
	_, ok := s.disabledSpec(name)
	return ok
}

func (s *Server) disabledSpec(name string) (inject.UpstreamSpec, bool) {
	s.dmu.Lock()
	defer s.dmu.Unlock()
	spec, ok := s.disabled[name]
	return spec, ok
}

func (s *Server) setDisabled(name string, spec *inject.UpstreamSpec) {
	s.dmu.Lock()
	defer s.dmu.Unlock()
	if spec == nil {
		delete(s.disabled, name)
	} else {
		s.disabled[name] = *spec
	}
}

// checkNotDisabledLocked refuses a fault on a disabled upstream: the
// registry no longer knows it, and would call it unknown.
func (s *Server) checkNotDisabledLocked(upstream string) error {
	if _, ok := s.disabledSpec(upstream); ok && upstream != "" {
		return &Error{Status: http.StatusConflict, Code: CodeConflict, Field: "upstream",
			Message: fmt.Sprintf("upstream %q is disabled; enable it before changing its faults", upstream)}
	}
	return nil
}

// faultCounts counts the faults naming each upstream.
func (s *Server) faultCounts() map[string]int {
	set := s.reg.Table().Load()
	out := map[string]int{}
	for i := range set.Len() {
		r, _ := set.Rule(i)
		out[r.Upstream]++
	}
	return out
}

func (s *Server) upstreamView(info inject.UpstreamInfo, enabled bool, counts map[string]int) Upstream {
	u := Upstream{Name: info.Name, Protocol: info.Protocol, Listen: info.Listen, Target: info.Target,
		Enabled: enabled, Refusing: info.Refusing, Faults: counts[info.Name]}
	if f := info.Forward; f != nil {
		fs := forwardSettings(f)
		u.Forward = &fs
		for _, h := range info.Hosts {
			uh := UpstreamHost{Name: h.Name, Host: h.Host, Declared: h.Declared, Ways: []UpstreamWay{}}
			for _, w := range h.Ways {
				uh.Ways = append(uh.Ways, UpstreamWay{Port: w.Port, Way: w.Way, Protocol: w.Protocol, Dial: w.Dial, Refusing: w.Refusing})
			}
			u.Hosts = append(u.Hosts, uh)
		}
		if enabled && f.InterceptTLS {
			if ca, err := s.reg.ForwardCA(info.Name); err == nil {
				u.CACert = string(ca)
			}
		}
	}
	return u
}

// forwardSettings is the API's view of a forward upstream's spec: the
// PEM of its upstream CAs is left out (it can be long; it was the
// caller's to begin with).
func forwardSettings(f *inject.ForwardSpec) ForwardSettings {
	fs := ForwardSettings{InterceptTLS: f.InterceptTLS, MaxHosts: f.MaxHosts}
	for from, to := range f.Resolve {
		fs.Resolve = append(fs.Resolve, from+"="+to)
	}
	slices.Sort(fs.Resolve)
	for _, h := range f.Hosts {
		fs.Hosts = append(fs.Hosts, ForwardHost{Name: h.Name, Host: h.Host})
	}
	return fs
}

// spec is the upstream a request asks for.
func (req UpstreamRequest) spec(name string) (inject.UpstreamSpec, error) {
	spec := inject.UpstreamSpec{Name: name, Protocol: req.Protocol, Listen: req.Listen, Target: req.Target}
	fs := req.ForwardSettings
	if req.Protocol != inject.ProtocolForward {
		if fs.InterceptTLS || fs.UpstreamCA != "" || len(fs.Resolve) > 0 || len(fs.Hosts) > 0 || fs.MaxHosts != 0 {
			return spec, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "protocol",
				Message: "intercept_tls, upstream_ca, resolve, hosts and max_hosts apply to a forward upstream only (protocol forward)"}
		}
		return spec, nil
	}
	f := &inject.ForwardSpec{InterceptTLS: fs.InterceptTLS, UpstreamCA: []byte(fs.UpstreamCA), MaxHosts: fs.MaxHosts}
	for i, e := range fs.Resolve {
		from, to, err := inject.ParseResolve(e)
		if err != nil {
			return spec, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: fmt.Sprintf("resolve[%d]", i), Message: err.Error()}
		}
		if f.Resolve == nil {
			f.Resolve = map[string]string{}
		}
		f.Resolve[from] = to
	}
	for _, h := range fs.Hosts {
		f.Hosts = append(f.Hosts, inject.ForwardHost{Name: h.Name, Host: h.Host})
	}
	spec.Forward = f
	return spec, nil
}

func specInfo(spec inject.UpstreamSpec) inject.UpstreamInfo {
	return inject.UpstreamInfo{Name: spec.Name, Protocol: spec.Protocol, Listen: spec.Listen, Target: spec.Target, Forward: spec.Forward}
}

// upstreams lists every upstream, enabled or not, sorted by name.
func (s *Server) upstreams() []Upstream {
	counts := s.faultCounts()
	out := []Upstream{}
	for _, info := range s.reg.Upstreams() {
		out = append(out, s.upstreamView(info, true, counts))
	}
	s.dmu.Lock()
	for _, spec := range s.disabled {
		out = append(out, s.upstreamView(specInfo(spec), false, counts))
	}
	s.dmu.Unlock()
	slices.SortFunc(out, func(a, b Upstream) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// upstream describes one upstream, or fails with a 404.
func (s *Server) upstream(name string) (Upstream, error) {
	counts := s.faultCounts()
	if info, err := s.reg.Upstream(name); err == nil {
		return s.upstreamView(info, true, counts), nil
	}
	if spec, ok := s.disabledSpec(name); ok {
		return s.upstreamView(specInfo(spec), false, counts), nil
	}
	return Upstream{}, fmt.Errorf("upstream %q: %w", name, inject.ErrUnknownUpstream)
}

// currentSpecLocked returns the spec an upstream runs with (its listen
// address resolved) and whether it is enabled.
func (s *Server) currentSpecLocked(name string) (inject.UpstreamSpec, bool, error) {
	if info, err := s.reg.Upstream(name); err == nil {
		return inject.UpstreamSpec{Name: info.Name, Protocol: info.Protocol, Listen: info.Listen, Target: info.Target,
			Forward: info.Forward}, true, nil
	}
	if spec, ok := s.disabledSpec(name); ok {
		return spec, false, nil
	}
	return inject.UpstreamSpec{}, false, fmt.Errorf("upstream %q: %w", name, inject.ErrUnknownUpstream)
}

// checkSpec validates spec and applies the allowlist. A denial is
// audited: it is the safety net doing its job, and worth knowing about.
func (s *Server) checkSpec(r *http.Request, spec *inject.UpstreamSpec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if spec.Protocol == inject.ProtocolForward {
		// Each destination is checked when a client first names it.
		if s.opts.Allow != nil {
			spec.Forward.Allow = s.opts.Allow.Allows
		}
		return nil
	}
	addr, err := spec.TargetAddr()
	if err != nil {
		return &inject.SpecError{Upstream: spec.Name, Field: "target", Msg: err.Error()}
	}
	if !s.opts.Allow.Allows(addr) {
		s.record(r, http.StatusForbidden, "upstream.denied", spec.Name, "target="+spec.Target)
		return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Field: "target",
			Message: fmt.Sprintf("target %s is not in the server's allowlist (%s)", addr, s.opts.Allow)}
	}
	return nil
}

func (s *Server) listUpstreams(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, UpstreamList{Upstreams: s.upstreams()})
}

func (s *Server) getUpstream(w http.ResponseWriter, r *http.Request) {
	u, err := s.upstream(param(r, "name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
}

func (s *Server) createUpstream(w http.ResponseWriter, r *http.Request) {
	var req UpstreamRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	spec, err := req.spec(req.Name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err = s.checkSpec(r, &spec)
	if _, ok := s.disabledSpec(spec.Name); ok && err == nil {
		err = fmt.Errorf("upstream %q (disabled): %w", spec.Name, inject.ErrUpstreamExists)
	}
	var info inject.UpstreamInfo
	if err == nil {
		info, err = s.reg.AddUpstream(spec)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.record(r, http.StatusCreated, "upstream.create", spec.Name, "target="+spec.Target+" listen="+info.Listen)
	u := s.upstreamView(info, true, s.faultCounts())
	u.Warnings = s.listenWarnings(spec)
	w.Header().Set("Location", "/v1/upstreams/"+url.PathEscape(spec.Name))
	writeJSON(w, http.StatusCreated, u)
}

// listenWarnings warns, in the log and in the answer, about a proxy
// listening on every interface: anything that can reach this host can
// then reach the upstream through it, faults included.
func (s *Server) listenWarnings(spec inject.UpstreamSpec) []string {
	if !inject.ListensOnAllInterfaces(spec.Listen) {
		return nil
	}
	msg := ListenAllWarning(spec.Name, spec.Listen)
	s.log.Warn().Str("upstream", spec.Name).Str("listen", spec.Listen).Msg(msg)
	return []string{msg}
}

// ListenAllWarning is the warning about an upstream whose proxy listens
// on every interface; serve logs it for the config file's upstreams too.
func ListenAllWarning(name, listen string) string {
	return fmt.Sprintf("upstream %q listens on %s, every interface: any machine that can reach this host can use the upstream "+
		"through the proxy; listen on 127.0.0.1 unless the server under test runs elsewhere", name, listen)
}
