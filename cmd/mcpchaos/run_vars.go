package main

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
)

// varFlags collects `--var NAME=VALUE`, repeatable: the values of the
// scenarios' {{ var "NAME" }}.
type varFlags map[string]string

func (v varFlags) String() string { return "" }

func (v varFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("%q: want NAME=VALUE", s)
	}
	if _, dup := v[name]; dup {
		return fmt.Errorf("variable %q given twice", name)
	}
	v[name] = value
	return nil
}

// loadScenarios reads and parses the scenario files with their variables
// filled, and returns the documents as filled too (what --api sends). A
// variable that no file uses is an error: it is usually misspelt.
func loadScenarios(paths []string, vars varFlags) ([]*scenario.Scenario, [][]byte, error) {
	var scenarios []*scenario.Scenario
	var docs [][]byte
	var used []string
	for _, p := range paths {
		data, err := scenario.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		data, u, err := scenario.ExpandVars(p, data, vars)
		if err != nil {
			return nil, nil, err
		}
		used = append(used, u...)
		sc, err := scenario.Parse(p, data)
		if err != nil {
			return nil, nil, err
		}
		scenarios = append(scenarios, sc)
		docs = append(docs, data)
	}
	if u := scenario.UnusedVars(vars, used); len(u) > 0 {
		return nil, nil, fmt.Errorf("--var %s: no scenario uses {{ var %q }}", u[0], u[0])
	}
	return scenarios, docs, nil
}
