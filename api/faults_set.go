package api

import (
	"fmt"
	"net/http"

	"github.com/mcpchaos/mcpchaos/rules"
)

// replaceFaults serves PUT /v1/faults: the body is the complete new set.
// Faults whose definition is unchanged keep their hit counts and expiry;
// on any error nothing changes.
func (s *Server) replaceFaults(w http.ResponseWriter, r *http.Request) {
	var set FaultSet
	if err := s.decodeJSON(w, r, &set); err != nil {
		s.fail(w, r, err)
		return
	}
	rs := make([]rules.Rule, 0, len(set.Faults))
	for i, req := range set.Faults {
		rule, err := s.toRule(req)
		if err != nil {
			s.fail(w, r, prefixField(err, fmt.Sprintf("faults[%d].", i)))
			return
		}
		rs = append(rs, rule)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, rule := range rs {
		if err := s.checkNotDisabledLocked(rule.Upstream); err != nil {
			s.fail(w, r, prefixField(err, fmt.Sprintf("faults[%d].", i)))
			return
		}
	}
	if err := s.reg.ReplaceRules(rs); err != nil {
		s.fail(w, r, err)
		return
	}
	s.record(r, http.StatusOK, "fault.replace_all", "", fmt.Sprintf("faults=%d", len(rs)))
	writeJSON(w, http.StatusOK, FaultList{Faults: s.faults("")})
}

// prefixField locates an API error inside a list.
func prefixField(err error, prefix string) error {
	if e, ok := err.(*Error); ok && e.Field != "" {
		c := *e
		c.Field = prefix + c.Field
		return &c
	}
	return err
}
