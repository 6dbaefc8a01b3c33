package api

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/mcpchaos/mcpchaos/inject"
)

// updateUpstream serves PUT (patch false) and PATCH (patch true): both
// build the new spec, then restart the proxy with it.
func (s *Server) updateUpstream(patch bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := param(r, "name")
		var req UpstreamRequest
		var p UpstreamPatch
		var err error
		if patch {
			err = s.decodeJSON(w, r, &p)
		} else {
			err = s.decodeJSON(w, r, &req)
		}
		if err == nil && req.Name != "" && req.Name != name {
			err = &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "name",
				Message: fmt.Sprintf("name %q does not match the URL's %q; an upstream cannot be renamed", req.Name, name)}
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		old, enabled, err := s.currentSpecLocked(name)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		next, err := req.spec(name)
		if err != nil && !patch {
			s.fail(w, r, err)
			return
		}
		if patch {
			next = old
			for _, f := range []struct{ src, dst *string }{{p.Protocol, &next.Protocol}, {p.Listen, &next.Listen}, {p.Target, &next.Target}} {
				if f.src != nil {
					*f.dst = *f.src
				}
			}
		}
		if next.Listen == "" {
			// Keep the address the server under test was pointed at.
			next.Listen = old.Listen
		}
		if err := s.checkSpec(r, &next); err != nil {
			s.fail(w, r, err)
			return
		}
		u, err := s.restartLocked(old, next, enabled)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		action := "upstream.replace"
		if patch {
			action = "upstream.patch"
		}
		s.record(r, http.StatusOK, action, name, "target="+next.Target+" listen="+u.Listen)
		u.Warnings = s.listenWarnings(next)
		writeJSON(w, http.StatusOK, u)
	}
}

// restartLocked swaps an upstream's spec: a disabled one just remembers
// it; an enabled one's proxy is stopped (its connections end) and started
// again, and on failure the old proxy is started back.
func (s *Server) restartLocked(old, next inject.UpstreamSpec, enabled bool) (Upstream, error) {
	if !enabled {
		s.setDisabled(next.Name, &next)
		return s.upstream(next.Name)
	}
	if err := s.reg.RemoveUpstream(old.Name); err != nil {
		return Upstream{}, err
	}
	if _, err := s.reg.AddUpstream(next); err != nil {
		if _, rerr := s.reg.AddUpstream(old); rerr != nil {
			s.log.Error().Err(rerr).Str("upstream", old.Name).Msg("restoring the upstream after a failed update; it is gone")
		}
		return Upstream{}, err
	}
	return s.upstream(next.Name)
}

// deleteUpstream removes an upstream and the faults that name it: a
// fault left behind would come back to life with a new upstream of the
// same name.
func (s *Server) deleteUpstream(w http.ResponseWriter, r *http.Request) {
	name := param(r, "name")
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if _, ok := s.disabledSpec(name); ok {
		s.setDisabled(name, nil)
	} else {
		err = s.reg.RemoveUpstream(name)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	n := 0
	for _, f := range s.faults(name) {
		if s.reg.RemoveRule(f.Name) == nil {
			n++
		}
	}
	s.record(r, http.StatusOK, "upstream.delete", name, fmt.Sprintf("faults_removed=%d", n))
	writeJSON(w, http.StatusOK, Deleted{Name: name, FaultsRemoved: n})
}

// disableUpstream stops the upstream's proxy, so that connections to it
// are refused as by a dead upstream, until it is enabled (or halted). Its
// address and faults are kept.
func (s *Server) disableUpstream(w http.ResponseWriter, r *http.Request) {
	name := param(r, "name")
	s.mu.Lock()
	defer s.mu.Unlock()
	spec, enabled, err := s.currentSpecLocked(name)
	if err == nil && enabled {
		err = s.reg.RemoveUpstream(name)
		if err == nil {
			s.setDisabled(name, &spec)
			s.record(r, http.StatusOK, "upstream.disable", name, "listen="+spec.Listen)
		}
	}
	s.answerUpstream(w, r, name, err)
}

// enableUpstream starts a disabled upstream's proxy again on its address.
func (s *Server) enableUpstream(w http.ResponseWriter, r *http.Request) {
	name := param(r, "name")
	s.mu.Lock()
	defer s.mu.Unlock()
	spec, enabled, err := s.currentSpecLocked(name)
	if err == nil && !enabled {
		_, err = s.reg.AddUpstream(spec)
		if err == nil {
			s.setDisabled(name, nil)
			s.record(r, http.StatusOK, "upstream.enable", name, "listen="+spec.Listen)
		}
	}
	s.answerUpstream(w, r, name, err)
}

func (s *Server) answerUpstream(w http.ResponseWriter, r *http.Request, name string, err error) {
	var u Upstream
	if err == nil {
		u, err = s.upstream(name)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
}

// halt removes every fault (held connections heal, refusing listeners
// reopen) and enables every disabled upstream: after a halt nothing
// mcpchaos does is breaking anything.
func (s *Server) halt(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := HaltResult{FaultsRemoved: s.reg.Halt(), UpstreamsEnabled: []string{}}
	s.dmu.Lock()
	specs := make([]inject.UpstreamSpec, 0, len(s.disabled))
	for _, spec := range s.disabled {
		specs = append(specs, spec)
	}
	s.dmu.Unlock()
	for _, spec := range specs {
		if _, err := s.reg.AddUpstream(spec); err != nil {
			res.Errors = append(res.Errors, err.Error())
			continue
		}
		s.setDisabled(spec.Name, nil)
		res.UpstreamsEnabled = append(res.UpstreamsEnabled, spec.Name)
	}
	slices.Sort(res.UpstreamsEnabled)
	s.record(r, http.StatusOK, "halt", "", fmt.Sprintf("faults_removed=%d upstreams_enabled=%d", res.FaultsRemoved, len(res.UpstreamsEnabled)))
	writeJSON(w, http.StatusOK, res)
}
