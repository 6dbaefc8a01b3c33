package api

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/mcpchaos/mcpchaos/rules"
)

// The fault handlers serve both /v1/faults/... and
// /v1/upstreams/{name}/faults/...; scoped says which. A scoped route
// checks that the upstream exists, sets a new fault's upstream, and only
// sees the upstream's faults.

// scope returns the upstream of a scoped route, "" otherwise.
func (s *Server) scope(r *http.Request, scoped bool) (string, error) {
	if !scoped {
		return r.URL.Query().Get("upstream"), nil
	}
	name := param(r, "name")
	if !s.upstreamKnown(name) {
		return "", errorf(http.StatusNotFound, CodeNotFound, "upstream %q does not exist", name)
	}
	return name, nil
}

func faultName(r *http.Request, scoped bool) string {
	if scoped {
		return param(r, "fault")
	}
	return param(r, "name")
}

// inScope checks that the existing rule belongs to the route's upstream.
func inScope(r rules.Rule, upstream string, scoped bool) error {
	if scoped && r.Upstream != upstream {
		return errorf(http.StatusNotFound, CodeNotFound, "fault %q does not belong to upstream %q", r.Name, upstream)
	}
	return nil
}

// setUpstream fills a scoped request's upstream, refusing another one.
func setUpstream(req *FaultRequest, upstream string, scoped bool) error {
	if !scoped {
		return nil
	}
	if req.Upstream != "" && req.Upstream != upstream {
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "upstream",
			Message: fmt.Sprintf("upstream %q does not match the URL's %q", req.Upstream, upstream)}
	}
	req.Upstream = upstream
	return nil
}

func (s *Server) listFaults(scoped bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		upstream, err := s.scope(r, scoped)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, FaultList{Faults: s.faults(upstream)})
	}
}

func (s *Server) getFault(scoped bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		upstream, err := s.scope(r, scoped)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		name := faultName(r, scoped)
		rule, f, ok := s.rule(name)
		if !ok {
			s.fail(w, r, fmt.Errorf("fault %q: %w", name, rules.ErrNotFound))
			return
		}
		if err := inScope(rule, upstream, scoped); err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, f)
	}
}

// createFault serves POST: a new fault; a taken name is a conflict (PUT
// replaces).
func (s *Server) createFault(scoped bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req FaultRequest
		if err := s.decodeJSON(w, r, &req); err != nil {
			s.fail(w, r, err)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		upstream, err := s.scope(r, scoped)
		if err == nil {
			err = setUpstream(&req, upstream, scoped)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if _, _, ok := s.rule(req.Name); ok && req.Name != "" {
			s.fail(w, r, &Error{Status: http.StatusConflict, Code: CodeConflict, Field: "name",
				Message: fmt.Sprintf("fault %q already exists; PUT /v1/faults/{name} replaces it", req.Name)})
			return
		}
		s.putFaultLocked(w, r, req)
	}
}

// putFaultLocked converts and installs req, and answers; s.mu is held.
func (s *Server) putFaultLocked(w http.ResponseWriter, r *http.Request, req FaultRequest) {
	rule, err := s.toRule(req)
	if err == nil {
		err = s.checkNotDisabledLocked(rule.Upstream)
	}
	var created bool
	if err == nil {
		created, err = s.reg.PutRule(rule)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.answerFault(w, r, rule, created)
}

func (s *Server) answerFault(w http.ResponseWriter, r *http.Request, rule rules.Rule, created bool) {
	_, f, _ := s.rule(rule.Name)
	status, action := http.StatusOK, "fault.replace"
	if created {
		status, action = http.StatusCreated, "fault.create"
		w.Header().Set("Location", "/v1/faults/"+url.PathEscape(rule.Name))
	}
	if r.Method == http.MethodPatch {
		action = "fault.patch"
	}
	s.record(r, status, action, rule.Name, faultDetail(rule))
	writeJSON(w, status, f)
}

// replaceFault serves PUT on one fault: create or replace.
func (s *Server) replaceFault(scoped bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req FaultRequest
		if err := s.decodeJSON(w, r, &req); err != nil {
			s.fail(w, r, err)
			return
		}
		name := faultName(r, scoped)
		if req.Name != "" && req.Name != name {
			s.fail(w, r, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "name",
				Message: fmt.Sprintf("name %q does not match the URL's %q", req.Name, name)})
			return
		}
		req.Name = name
		s.mu.Lock()
		defer s.mu.Unlock()
		upstream, err := s.scope(r, scoped)
		if err == nil {
			err = setUpstream(&req, upstream, scoped)
		}
		if old, _, ok := s.rule(name); err == nil && ok {
			err = inScope(old, upstream, scoped)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.putFaultLocked(w, r, req)
	}
}

// patchFault serves PATCH: change some fields of an existing fault.
func (s *Server) patchFault(scoped bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var p FaultPatch
		if err := s.decodeJSON(w, r, &p); err != nil {
			s.fail(w, r, err)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		_, old, err := s.existingFault(r, scoped)
		var rule rules.Rule
		if err == nil {
			rule, err = s.applyPatch(old, p)
		}
		// On an upstream's route the fault is that upstream's (existingFault
		// checked): a patch may not move it elsewhere.
		if err == nil && scoped && rule.Upstream != old.Upstream {
			err = &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "upstream",
				Message: "a fault cannot be moved to another upstream through this URL; use /v1/faults/{name}"}
		}
		if err == nil {
			err = s.checkNotDisabledLocked(rule.Upstream)
		}
		if err == nil {
			_, err = s.reg.PutRule(rule)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.answerFault(w, r, rule, false)
	}
}

func (s *Server) deleteFault(scoped bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		name := faultName(r, scoped)
		upstream, err := s.scope(r, scoped)
		if old, _, ok := s.rule(name); err == nil && ok {
			err = inScope(old, upstream, scoped)
		}
		if err == nil {
			err = s.reg.RemoveRule(name)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.record(r, http.StatusNoContent, "fault.delete", name, "")
		w.WriteHeader(http.StatusNoContent)
	}
}
