package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// ruleFields are the keys of an entry of rules.
var ruleFields = []string{"name", "upstream", "when", "fault", "probability", "limit", "ttl", "enabled"}

// Rule is one entry of a rules list: a [rules.Rule] that remembers where
// it was written, so that errors found later (by the registry) can still
// name the line.
type Rule struct {
	rules.Rule
	fields Mapping
	fault  Mapping
}

// DecodeRules reads a list of rules and compiles each one (expression and
// fault parameters) so that every mistake is reported here, with its line.
// When upstreams is not empty, a rule's upstream must be one of them.
func DecodeRules(n Node, upstreams []Upstream) ([]Rule, error) {
	items, err := n.Items()
	if err != nil {
		return nil, err
	}
	declared := make([]string, 0, len(upstreams))
	for _, u := range upstreams {
		declared = append(declared, u.Name)
	}
	checker := rules.NewTable(rules.TableOptions{ParseFault: inject.ParseFault})
	out := make([]Rule, 0, len(items))
	seen := map[string]bool{}
	for _, it := range items {
		r, err := decodeRule(it)
		if err != nil {
			return nil, err
		}
		if seen[r.Name] {
			return nil, r.fields.Get("name").Errorf(ErrDuplicate, "rule %q is declared twice", r.Name)
		}
		seen[r.Name] = true
		if r.Upstream != "" && len(declared) > 0 && !slices.Contains(declared, r.Upstream) {
			msg := fmt.Sprintf("%q is not declared under upstreams", r.Upstream)
			if s := suggest(r.Upstream, declared); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += " (declared: " + strings.Join(declared, ", ") + ")"
			}
			return nil, r.fields.Get("upstream").Errorf(ErrInvalid, "%s", msg)
		}
		if err := checker.Check(r.Rule); err != nil {
			return nil, r.Locate(err)
		}
		if err := checkKind(r, upstreams); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// checkKind refuses a fault kind that cannot act on the protocol of the
// rule's upstream (http_error on a tcp upstream), which the registry
// would refuse later without a line number.
func checkKind(r Rule, upstreams []Upstream) error {
	k, ok := inject.Kind(r.Fault.Kind)
	if !ok || r.Upstream == "" {
		return nil
	}
	for _, u := range upstreams {
		if u.Name != r.Upstream {
			continue
		}
		proto := u.Protocol
		if proto == "" {
			proto = inject.ProtocolTCP
		}
		if !k.AppliesTo(proto) {
			return r.fault.Get("kind").Errorf(ErrInvalid, "%s does not apply to %s upstream %q", k.Name, proto, u.Name)
		}
	}
	return nil
}

func decodeRule(it Node) (Rule, error) {
	m, err := it.Mapping(ruleFields...)
	if err != nil {
		return Rule{}, err
	}
	r := Rule{fields: m}
	if r.Name, err = m.Get("name").String(); err != nil {
		return r, err
	}
	if r.Name == "" {
		return r, m.Get("name").Errorf(ErrRequired, "is required (rules are addressed by name)")
	}
	if r.Upstream, err = m.Get("upstream").String(); err != nil {
		return r, err
	}
	if r.When, err = m.Get("when").String(); err != nil {
		return r, err
	}
	if r.Fault, r.fault, err = decodeFault(m.Get("fault")); err != nil {
		return r, err
	}
	if p := m.Get("probability"); p.Present() {
		v, err := p.Float()
		if err != nil {
			return r, err
		}
		r.Probability = &v
	}
	if r.Limit, err = m.Get("limit").Int(); err != nil {
		return r, err
	}
	if r.TTL, err = m.Get("ttl").Duration(); err != nil {
		return r, err
	}
	enabled, err := m.Get("enabled").Bool(true)
	if err != nil {
		return r, err
	}
	r.Disabled = !enabled
	return r, nil
}

// decodeFault reads {kind: ..., <params>}: every key but kind is a
// parameter, passed to the fault layer as plain data.
func decodeFault(n Node) (rules.FaultSpec, Mapping, error) {
	var spec rules.FaultSpec
	if !n.Present() {
		return spec, Mapping{node: n}, n.Errorf(ErrRequired, "is required, e.g. {kind: latency, delay: 250ms}")
	}
	m, err := n.Mapping()
	if err != nil {
		return spec, m, err
	}
	if spec.Kind, err = m.Get("kind").String(); err != nil {
		return spec, m, err
	}
	for _, k := range m.Keys() {
		if k == "kind" {
			continue
		}
		v, err := m.Get(k).Value()
		if err != nil {
			return spec, m, err
		}
		if spec.Params == nil {
			spec.Params = map[string]any{}
		}
		spec.Params[k] = v
	}
	return spec, m, nil
}

// Line is the line the entry starts on.
func (r Rule) Line() int { return r.fields.node.Line() }

// Locate turns an error about this rule (a *rules.FieldError or
// *rules.ExprError, from [rules.Table.Check] or from the registry) into an
// *[Error] at the line of the field it concerns; for a "when" expression,
// at the line and column of the mistake.
func (r Rule) Locate(err error) error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	var ee *rules.ExprError
	if errors.As(err, &ee) {
		w := r.fields.Get("when")
		e := w.Errorf(err, "%s", ee.Msg)
		e.Line, e.Column = exprPos(w, ee)
		return e
	}
	var fe *rules.FieldError
	if errors.As(err, &fe) {
		return r.fieldNode(fe).Errorf(err, "%s", fe.Msg)
	}
	return r.fields.node.Errorf(err, "rule %q: %v", r.Name, err)
}

// fieldNode finds the node a rules.FieldError is about.
func (r Rule) fieldNode(fe *rules.FieldError) Node {
	param, isFault := strings.CutPrefix(fe.Field, "fault.")
	switch {
	case fe.Field == "fault":
		// The fault layer could not tell which parameter (a bad
		// duration): find the one that fails on its own.
		if k := r.blame(fe.Msg); k != "" {
			return r.fault.Get(k)
		}
		return r.fields.Get("fault")
	case isFault:
		if p, ok := descend(r.fault, param); ok || param == "kind" {
			return p
		}
		// A default the fault layer filled in; point at the fault.
		n := r.fields.Get("fault")
		n.path = r.fault.node.Key(param)
		return n
	}
	return r.fields.Get(fe.Field)
}

// descend follows a dotted parameter path ("headers.Retry-After") through
// nested mappings.
func descend(m Mapping, dotted string) (Node, bool) {
	key, rest, nested := strings.Cut(dotted, ".")
	n := m.Get(key)
	if !nested || !n.Present() {
		if !n.Present() {
			n = m.Get(dotted) // a key that itself contains a dot
		}
		return n, n.Present()
	}
	sub, err := n.Mapping()
	if err != nil {
		return n, true
	}
	return descend(sub, rest)
}

// blame returns the parameter that, alone, fails with msg.
func (r Rule) blame(msg string) string {
	for _, k := range r.fault.Keys() {
		if k == "kind" {
			continue
		}
		one := rules.FaultSpec{Kind: r.Fault.Kind, Params: map[string]any{k: r.Fault.Params[k]}}
		_, err := inject.ParseFault(one)
		var fe *rules.FieldError
		if errors.As(err, &fe) && fe.Msg == msg {
			return k
		}
	}
	return ""
}

// RuleSet returns the rules as the fault layer takes them.
func RuleSet(rs []Rule) []rules.Rule {
	out := make([]rules.Rule, len(rs))
	for i, r := range rs {
		out[i] = r.Rule
	}
	return out
}

// LocateRuleError locates an error returned for a whole rule set (by
// ReplaceRules) at the rule it names.
func LocateRuleError(rs []Rule, err error) error {
	name := ""
	var fe *rules.FieldError
	var ee *rules.ExprError
	switch {
	case errors.As(err, &ee):
		name = ee.Rule
	case errors.As(err, &fe):
		name = fe.Rule
	}
	for _, r := range rs {
		if r.Name == name {
			return r.Locate(err)
		}
	}
	return err
}
