package api

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/mcpchaos/mcpchaos/rules"
)

// param returns a URL parameter, unescaped: names may hold spaces or
// slashes ("lose the create reply"), which arrive percent-encoded.
func param(r *http.Request, key string) string {
	v := chi.URLParam(r, key)
	if r.URL.RawPath != "" {
		if u, err := url.PathUnescape(v); err == nil {
			v = u
		}
	}
	return v
}

// parseTTL applies the server's TTL policy: empty means the default; a
// TTL must be positive and at most the maximum. A longer one is refused
// rather than cut, so that the client knows when its fault ends.
func (s *Server) parseTTL(field, v string) (time.Duration, error) {
	if v == "" {
		return s.opts.DefaultTTL, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: field,
			Message: fmt.Sprintf("%s must be a positive duration like 30s or 10m, not %q", field, v)}
	}
	if d > s.opts.MaxTTL {
		return 0, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: field,
			Message: fmt.Sprintf("%s is over the maximum of %s (serve --max-ttl)", field, s.opts.MaxTTL)}
	}
	return d, nil
}

// toRule converts a request into the rule the registry takes. The rule's
// own checks (expression, fault parameters) happen in the registry.
func (s *Server) toRule(req FaultRequest) (rules.Rule, error) {
	ttl, err := s.parseTTL("ttl", req.TTL)
	if err != nil {
		return rules.Rule{}, err
	}
	r := rules.Rule{
		Name: req.Name, Upstream: req.Upstream, When: req.When,
		Fault:       rules.FaultSpec{Kind: req.Fault.Kind, Params: req.Fault.Params},
		Probability: req.Probability, Limit: req.Limit, TTL: ttl,
		Disabled: req.Enabled != nil && !*req.Enabled,
	}
	return r, nil
}

// applyPatch changes r by p.
func (s *Server) applyPatch(r rules.Rule, p FaultPatch) (rules.Rule, error) {
	if p.Upstream != nil {
		r.Upstream = *p.Upstream
	}
	if p.When != nil {
		r.When = *p.When
	}
	if p.Fault != nil {
		r.Fault = rules.FaultSpec{Kind: p.Fault.Kind, Params: p.Fault.Params}
	}
	if p.Probability != nil {
		r.Probability = p.Probability
	}
	if p.Limit != nil {
		r.Limit = *p.Limit
	}
	if p.TTL != nil {
		ttl, err := s.parseTTL("ttl", *p.TTL)
		if err != nil {
			return r, err
		}
		r.TTL = ttl
	}
	if p.Enabled != nil {
		r.Disabled = !*p.Enabled
	}
	return r, nil
}

// faultView describes a rule and its state at now.
func faultView(r rules.Rule, st *rules.State, now time.Time) Fault {
	f := Fault{
		Name: r.Name, Upstream: r.Upstream, When: r.When,
		Fault:       FaultSpec{Kind: r.Fault.Kind, Params: r.Fault.Params},
		Probability: r.Chance(), Limit: r.Limit, Enabled: !r.Disabled,
		Hits: st.Hits(), AddedAt: st.Added().UTC(), State: StateActive,
	}
	if exp := st.Expires(); !exp.IsZero() {
		e := exp.UTC()
		left := max(exp.Sub(now), 0).Seconds()
		f.ExpiresAt, f.ExpiresInSeconds = &e, &left
		f.TTL = exp.Sub(st.Added()).String()
	}
	switch {
	case r.Disabled:
		f.State = StateDisabled
	case f.ExpiresAt != nil && !now.Before(*f.ExpiresAt):
		f.State = StateExpired
	case r.Limit > 0 && st.Hits() >= int64(r.Limit):
		f.State = StateExhausted
	}
	return f
}

// faults lists the registry's faults; upstream, when set, filters.
func (s *Server) faults(upstream string) []Fault {
	set := s.reg.Table().Load()
	now := s.reg.Table().Now()
	out := []Fault{}
	for i := range set.Len() {
		r, st := set.Rule(i)
		if upstream == "" || r.Upstream == upstream {
			out = append(out, faultView(r, st, now))
		}
	}
	return out
}

// rule returns the named rule's definition and view.
func (s *Server) rule(name string) (rules.Rule, Fault, bool) {
	set := s.reg.Table().Load()
	for i := range set.Len() {
		r, st := set.Rule(i)
		if r.Name == name {
			return r, faultView(r, st, s.reg.Table().Now()), true
		}
	}
	return rules.Rule{}, Fault{}, false
}

// faultDetail summarises a rule for the audit trail.
func faultDetail(r rules.Rule) string {
	d := "kind=" + r.Fault.Kind
	if r.Upstream != "" {
		d += " upstream=" + r.Upstream
	}
	if r.TTL > 0 {
		d += " ttl=" + r.TTL.String()
	}
	if r.Disabled {
		d += " disabled"
	}
	return d
}
