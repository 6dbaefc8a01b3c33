package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// scanCall is what scan does with one listed tool.
type scanCall struct {
	tool  transcript.Tool
	class scenario.ToolClass
	// skip says why the tool is not called ("" : it is).
	skip        string
	args        map[string]any
	invalidArgs map[string]any
	broke       string
}

// calls classifies each tool and generates its arguments, applying
// --write, --read, --args and --allow-destructive, each of which must
// name a listed tool.
func (p *scanPlan) calls(tools []transcript.Tool, seed uint64) ([]scanCall, error) {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	known := func(flag string, list []string) error {
		for _, n := range list {
			if !slices.Contains(names, n) {
				return fmt.Errorf("--%s %s: the server lists no such tool (it lists %s)", flag, n, strings.Join(names, ", "))
			}
		}
		return nil
	}
	argNames := make([]string, len(p.flags.args))
	for i, kv := range p.flags.args {
		argNames[i] = kv.name
	}
	for _, c := range []struct {
		flag string
		list []string
	}{{"write", p.flags.write}, {"read", p.flags.read}, {"args", argNames}} {
		if err := known(c.flag, c.list); err != nil {
			return nil, err
		}
	}
	gen := scenario.NewArgGen(seed)
	out := make([]scanCall, 0, len(tools))
	for _, t := range tools {
		c := scanCall{tool: t, class: scenario.ClassifyTool(t)}
		switch {
		case slices.Contains(p.flags.write, t.Name):
			c.class = scenario.ToolClass{Write: true, Destructive: c.class.Destructive, Reason: "--write"}
		case slices.Contains(p.flags.read, t.Name):
			c.class = scenario.ToolClass{Reason: "--read"}
		}
		if c.class.Destructive && !p.allowDestructive {
			c.skip = "destructive; --allow-destructive calls it"
		}
		c.args = gen.Valid(t.Name, t.InputSchema)
		for _, kv := range p.flags.args {
			if kv.name != t.Name {
				continue
			}
			args, err := decodeArgsFlag(kv.value)
			if err != nil {
				return nil, fmt.Errorf("--args %s: %w", t.Name, err)
			}
			c.args = args
		}
		if bad, broke, ok := gen.Invalid(t.Name, t.InputSchema); ok {
			c.invalidArgs, c.broke = bad, broke
		}
		out = append(out, c)
	}
	return out, nil
}

func decodeArgsFlag(s string) (map[string]any, error) {
	if len(s) > maxArgsJSON {
		return nil, fmt.Errorf("longer than %d bytes", maxArgsJSON)
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil || args == nil {
		return nil, fmt.Errorf("want a JSON object, like {\"id\": \"A-1\"}: %v", err)
	}
	return args, nil
}

// document writes the whole scenario: the head, then the matrix of
// faults (one per upstream it applies to) and tools.
func (p *scanPlan) document(calls []scanCall) ([]byte, error) {
	var b bytes.Buffer
	p.head(&b)
	var writes []string
	for _, c := range calls {
		if c.skip == "" && c.class.Write {
			writes = append(writes, c.tool.Name)
		}
	}
	if len(writes) > 0 {
		fmt.Fprintf(&b, "  write_tools: %s\n", yv(writes))
	}
	b.WriteString("matrix:\n")
	var writeFaults, readFaults []string
	if (len(p.upstreams) > 0 || (p.proxy != nil && p.proxy.faults)) && len(p.faults) > 0 {
		b.WriteString("  faults:\n")
	}
	targets := p.upstreams
	if p.proxy != nil && p.proxy.faults {
		// The forward upstream's hosts are reached over HTTP or TCP:
		// every kind applies.
		targets = append(slices.Clip(targets), scanUpstream{name: scenario.ProxyEnvName, protocol: inject.ProtocolForward})
	}
	for _, f := range p.faults {
		kind, _ := inject.Kind(fmt.Sprint(f.Fault["kind"]))
		for _, u := range targets {
			if (u.protocol == inject.ProtocolHTTP && !kind.HTTP) || (u.protocol == inject.ProtocolTCP && !kind.TCP) {
				continue
			}
			name := f.Name
			if len(targets) > 1 {
				name += " on " + u.name
			}
			fmt.Fprintf(&b, "    - %s\n", yamlKV("name", name, "upstream", u.name, "fault", f.Fault))
			if f.Write {
				writeFaults = append(writeFaults, name)
			}
			if f.Read {
				readFaults = append(readFaults, name)
			}
		}
	}
	b.WriteString("  tools:\n")
	for _, c := range calls {
		if c.skip != "" {
			fmt.Fprintf(&b, "    # %s: skipped (%s)\n", c.tool.Name, c.skip)
			continue
		}
		kind, faults := "read", readFaults
		if c.class.Write {
			kind, faults = "write", writeFaults
		}
		fmt.Fprintf(&b, "    # %s: %s (%s)\n", c.tool.Name, kind, c.class.Reason)
		if faults == nil {
			faults = []string{}
		}
		fmt.Fprintf(&b, "    - %s\n", yamlKV("tool", c.tool.Name, "args", c.args, "faults", faults))
		if c.invalidArgs != nil {
			fmt.Fprintf(&b, "    # %s: invalid on purpose: %s\n", c.tool.Name, c.broke)
			fmt.Fprintf(&b, "    - %s\n", yamlKV("tool", c.tool.Name, "args", c.invalidArgs, "invalid", true, "faults", []string{}))
		}
	}
	return b.Bytes(), nil
}
