package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// SideEffectSpec says what a committed side effect looks like: a matcher
// over the fault layer's upstream exchanges, or a probe run before and
// after the run (the difference is what the run committed).
type SideEffectSpec struct {
	Name string
	// Upstream restricts Match to one upstream's exchanges.
	Upstream string
	// Match is an expr expression over an [ExchangeEnv].
	Match string
	// Intended is how many the steps should commit; default 1.
	Intended int
	// Probe counts the side effect from outside: the upstream's state,
	// the truth when the scenario has one.
	Probe *Probe
	// Count says what a matcher counts: CountEffects (the default) folds
	// identical PUT, PATCH and DELETE requests into one effect;
	// CountRequests counts every matching request.
	Count string
	// Warning is set when Match can count a request the upstream never
	// answered (see unansweredWarning).
	Warning string

	prog *vm.Program
}

// What a side-effect matcher counts.
const (
	CountEffects  = "effects"
	CountRequests = "requests"
)

// ExchangeEnv is what a side-effect matcher reads: one HTTP exchange
// through an upstream proxy. There is no `status`: it read 0 for a
// request the upstream never answered, so `status < 300` counted requests
// a fault stopped (see removedStatus).
type ExchangeEnv struct {
	Upstream string `expr:"upstream"`
	// Host and Via are the host the server named and the forward
	// upstream it went through, for a forward upstream's destination.
	Host   string `expr:"host"`
	Via    string `expr:"via"`
	Method string `expr:"method"`
	Path   string `expr:"path"`
	// Reached: the whole request was written to the upstream.
	Reached bool `expr:"reached"`
	// UpstreamStatus is the upstream's answer, 0 when it never answered.
	UpstreamStatus int `expr:"upstream_status"`
	// ClientStatus is what the server got: the upstream's status, a
	// fault's (http_error), 502 from the proxy; 0 when it got none.
	ClientStatus int `expr:"client_status"`
	// Committed: the upstream answered (upstream_status is not 0),
	// whatever reached the server.
	Committed bool `expr:"committed"`
	// Tool, Call and Attempt are the call the exchange happened in.
	Tool    string `expr:"tool"`
	Call    int    `expr:"call"`
	Attempt int    `expr:"attempt"`
}

var sideEffectFields = []string{"name", "upstream", "match", "intended", "probe", "count"}

func decodeSideEffects(n config.Node, sc *Scenario) ([]SideEffectSpec, error) {
	items, err := n.Items()
	if err != nil {
		return nil, err
	}
	var out []SideEffectSpec
	for _, it := range items {
		m, err := it.Mapping(sideEffectFields...)
		if err != nil {
			return nil, err
		}
		var s SideEffectSpec
		if s.Name, err = m.Get("name").String(); err != nil {
			return nil, err
		}
		if s.Name == "" {
			return nil, m.Get("name").Errorf(config.ErrRequired, "is required")
		}
		if slices.ContainsFunc(out, func(o SideEffectSpec) bool { return o.Name == s.Name }) {
			return nil, m.Get("name").Errorf(config.ErrDuplicate, "side effect %q is declared twice", s.Name)
		}
		if s.Upstream, err = m.Get("upstream").String(); err != nil {
			return nil, err
		}
		if s.Upstream != "" && !slices.Contains(config.UpstreamNames(sc.Upstreams), s.Upstream) {
			return nil, m.Get("upstream").Errorf(config.ErrInvalid, "%q is not declared under upstreams", s.Upstream)
		}
		in := m.Get("intended")
		if s.Intended, err = in.Int(); err != nil {
			return nil, err
		}
		if !in.Present() {
			s.Intended = 1
		} else if s.Intended < 0 {
			return nil, in.Errorf(config.ErrInvalid, "must not be negative")
		}
		match, probe := m.Get("match"), m.Get("probe")
		switch {
		case match.Present() == probe.Present():
			return nil, it.Errorf(config.ErrRequired, "give either match (over upstream exchanges) or probe")
		case match.Present():
			if s.Match, err = match.String(); err != nil {
				return nil, err
			}
			if err := removedStatus(match, s.Match); err != nil {
				return nil, err
			}
			if s.prog, err = compileExpr(match, s.Match, expr.Env(ExchangeEnv{}), expr.AsBool()); err != nil {
				return nil, err
			}
			if w := unansweredWarning(&s); w != "" {
				s.Warning = fmt.Sprintf("%s:%d: side effect %q: %s", match.File(), match.Line(), s.Name, w)
			}
		default:
			if s.Probe, err = decodeProbe(probe, sc); err != nil {
				return nil, err
			}
		}
		if s.Count, err = decodeCount(m.Get("count"), s.Probe != nil); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// compileExpr compiles an expression written at node n, reporting a
// mistake at its line and column.
func compileExpr(n config.Node, src string, opts ...expr.Option) (*vm.Program, error) {
	if strings.TrimSpace(src) == "" {
		return nil, n.Errorf(config.ErrRequired, "is empty")
	}
	// Bounded first: expr-lang's parser recurses once per level.
	var ee *rules.ExprError
	if errors.As(rules.CheckExprLimits("", src), &ee) {
		return nil, n.ErrorAt(ee.Line, ee.Column, ee, "%s", ee.Msg)
	}
	prog, err := expr.Compile(src, opts...)
	if err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, n.ErrorAt(fe.Line, fe.Column, config.ErrInvalid, "%s", fe.Message)
		}
		return nil, n.Errorf(config.ErrInvalid, "%v", err)
	}
	return prog, nil
}

// Matches reports whether the event is this side effect.
func (s *SideEffectSpec) Matches(e inject.Event) bool {
	// A matcher naming a forward upstream covers its destinations.
	if s.prog == nil || e.Type != inject.EventExchange || (s.Upstream != "" && e.Upstream != s.Upstream && e.Via != s.Upstream) {
		return false
	}
	return s.matchEnv(ExchangeEnv{
		Upstream: e.Upstream, Host: e.Host, Via: e.Via, Method: e.Method, Path: e.Path, Reached: e.Reached,
		UpstreamStatus: e.Status, ClientStatus: e.ClientStatus,
		Committed: e.Committed, Tool: e.Tool, Call: e.Call, Attempt: e.Attempt,
	})
}

func (s *SideEffectSpec) matchEnv(env ExchangeEnv) bool {
	out, err := expr.Run(s.prog, env)
	return err == nil && out == true
}

// defaultProbeTimeout bounds a probe that does not say.
const defaultProbeTimeout = 5 * time.Second
