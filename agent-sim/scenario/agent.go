package scenario

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/config"
)

var agentFields = []string{"personas", "hosts", "host_profiles", "budget", "call_timeout", "late_grace", "write_tools"}

func (sc *Scenario) decodeAgent(n config.Node) error {
	m, err := n.Mapping(agentFields...)
	if err != nil {
		return err
	}
	a := &sc.Agent
	if a.HostProfiles, err = decodeHostProfiles(m.Get("host_profiles")); err != nil {
		return err
	}
	if a.Personas, err = nameList(m.Get("personas"), func(name string) error {
		_, err := persona.ByName(name)
		return err
	}); err != nil {
		return err
	}
	if len(a.Personas) == 0 {
		a.Personas = []string{DefaultPersona}
	}
	if a.Hosts, err = nameList(m.Get("hosts"), func(name string) error {
		_, err := persona.HostByName(name, a.HostProfiles)
		return err
	}); err != nil {
		return err
	}
	if len(a.Hosts) == 0 {
		for _, h := range persona.BuiltinHosts() {
			a.Hosts = append(a.Hosts, h.Name)
		}
	}
	b := m.Get("budget")
	if a.Budget, err = b.Int(); err != nil {
		return err
	}
	switch {
	case !b.Present():
		a.Budget = DefaultBudget
	case a.Budget < 1:
		return b.Errorf(config.ErrInvalid, "must be at least 1 (the number of tool calls a run may make)")
	}
	ct := m.Get("call_timeout")
	if a.CallTimeout, err = ct.Duration(); err != nil {
		return err
	}
	switch {
	case !ct.Present():
		a.CallTimeout = DefaultCallTimeout
	case a.CallTimeout <= 0:
		return ct.Errorf(config.ErrInvalid, "must be positive")
	}
	if err := a.decodeLateGrace(m.Get("late_grace")); err != nil {
		return err
	}
	if a.WriteTools, err = m.Get("write_tools").Strings(); err != nil {
		return err
	}
	return nil
}

// nameList reads a list of names (or a single name), checking each with
// check so that an unknown name is reported at its own line.
func nameList(n config.Node, check func(string) error) ([]string, error) {
	if !n.Present() {
		return nil, nil
	}
	items := []config.Node{n}
	if _, err := n.String(); err != nil {
		if items, err = n.Items(); err != nil {
			return nil, err
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		s, err := it.String()
		if err != nil {
			return nil, err
		}
		if err := check(s); err != nil {
			return nil, it.Errorf(config.ErrInvalid, "%v", err)
		}
		if seen[s] {
			return nil, it.Errorf(config.ErrDuplicate, "%q is listed twice", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

func decodeHostProfiles(n config.Node) ([]persona.HostProfile, error) {
	items, err := n.Items()
	if err != nil {
		return nil, err
	}
	var out []persona.HostProfile
	for _, it := range items {
		m, err := it.Mapping("name", "protocol_error", "generic_text", "no_response", "after_crash")
		if err != nil {
			return nil, err
		}
		var h persona.HostProfile
		for _, f := range []struct {
			key string
			dst *string
		}{{"name", &h.Name}, {"protocol_error", &h.ProtocolError}, {"generic_text", &h.GenericText}, {"no_response", &h.NoResponse}, {"after_crash", &h.AfterCrash}} {
			if *f.dst, err = m.Get(f.key).String(); err != nil {
				return nil, err
			}
		}
		if h.Name == "" {
			return nil, m.Get("name").Errorf(config.ErrRequired, "is required")
		}
		if err := h.Validate(); err != nil {
			return nil, it.Errorf(config.ErrInvalid, "%v", err)
		}
		out = append(out, h)
	}
	return out, nil
}
