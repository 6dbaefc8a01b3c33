package api

import (
	"fmt"
	"net/http"

	"github.com/mcpchaos/mcpchaos/rules"
)

// The control operations act on a fault's state, not its definition:
// extend moves its expiry, reset zeroes its hit count. Re-submitting a
// fault does neither (a changed ttl counts from when the fault was
// added), so that a script that PUTs its faults on a loop cannot keep
// one alive by accident.

// extendFault serves POST .../faults/{name}/extend: the fault now expires
// ttl from now.
func (s *Server) extendFault(scoped bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req FaultExtend
		if err := s.decodeJSON(w, r, &req); err != nil {
			s.fail(w, r, err)
			return
		}
		if req.TTL == "" {
			s.fail(w, r, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "ttl",
				Message: `ttl is required: how long from now the fault lives, like "10m"`})
			return
		}
		ttl, err := s.parseTTL("ttl", req.TTL)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.controlFault(w, r, scoped, "fault.extend", "ttl="+ttl.String(), func(name string) error {
			_, err := s.reg.ExtendRule(name, ttl)
			return err
		})
	}
}

// resetFault serves POST .../faults/{name}/reset: the fault's hit count
// goes back to zero, so a fault that reached its limit injects again.
func (s *Server) resetFault(scoped bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.controlFault(w, r, scoped, "fault.reset", "", s.reg.ResetRule)
	}
}

// controlFault finds the route's fault, applies op to it and answers with
// the fault as it now is.
func (s *Server) controlFault(w http.ResponseWriter, r *http.Request, scoped bool, action, detail string, op func(string) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, _, err := s.existingFault(r, scoped)
	if err == nil {
		err = op(name)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	_, f, _ := s.rule(name)
	s.record(r, http.StatusOK, action, name, detail)
	writeJSON(w, http.StatusOK, f)
}

// existingFault finds the fault the route names, which must exist and, on
// an upstream's route, belong to that upstream. s.mu must be held.
func (s *Server) existingFault(r *http.Request, scoped bool) (string, rules.Rule, error) {
	name := faultName(r, scoped)
	upstream, err := s.scope(r, scoped)
	if err != nil {
		return name, rules.Rule{}, err
	}
	old, _, ok := s.rule(name)
	if !ok {
		return name, rules.Rule{}, fmt.Errorf("fault %q: %w", name, rules.ErrNotFound)
	}
	return name, old, inScope(old, upstream, scoped)
}
