package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/examples"
	"github.com/mcpchaos/mcpchaos/inject"
)

// scanName names the generated scenario, and so every cell of its report.
const scanName = "scan"

// scanBudget bounds each cell's calls: enough to see a retry loop, short
// enough that a swallowed timeout does not hold the scan for long.
const scanBudget = 4

// maxArgsJSON bounds one --args value; maxPairs how many times a
// NAME=VALUE flag is repeated.
const (
	maxArgsJSON = 64 << 10
	maxPairs    = 64
)

// scanFlags are scan's own flags.
type scanFlags struct {
	url              string
	upstreams, env   pairFlags
	files, args      pairFlags
	headers          headerFlags
	write, read      listFlags
	faults, save     string
	allowDestructive bool
	proxy            proxyFlags
}

func (f *scanFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "url", "", "the server's Streamable HTTP endpoint, instead of a command after --")
	fs.Var(&f.headers, "header", `"NAME: VALUE": a header sent with every request to --url (Authorization, a tenant header), like curl's -H; --save writes it into the scenario as given; repeatable`)
	fs.Var(&f.upstreams, "upstream", "NAME=TARGET: an upstream the server's tools call, put behind a fault proxy: http://host:port, host:port (tcp) or builtin:carrier; repeatable")
	fs.Var(&f.env, "env", `NAME=VALUE for the server's environment; the value takes the scenario templates ({{ upstream "NAME" }}, {{ file "NAME" }}); repeatable`)
	fs.Var(&f.files, "file", `NAME=PATH: a template file (a kubeconfig, a config.yaml) rendered for each run into its own temporary directory; {{ file "NAME" }} is its path; repeatable`)
	fs.Var(&f.args, "args", `TOOL=JSON: the arguments to call TOOL with, instead of generated ones; repeatable`)
	fs.Var(&f.write, "write", "TOOL: treat TOOL as a tool that writes, whatever its annotations and name say; repeatable")
	fs.Var(&f.read, "read", "TOOL: treat TOOL as a tool that only reads; repeatable")
	fs.StringVar(&f.faults, "faults", "", "comma-separated fault kinds to cross every tool with, instead of the defaults ("+strings.Join(inject.KindNames(), ", ")+")")
	fs.StringVar(&f.save, "save", "", "write the generated scenario to this file (mcpchaos run FILE replays it)")
	fs.BoolVar(&f.allowDestructive, "allow-destructive", false, "also call tools that are destructive (destructiveHint, or a name like delete_*)")
	f.proxy.register(fs)
}

// scanPlan is what scan's flags ask for, before the server is asked.
type scanPlan struct {
	flags            *scanFlags
	proxy            *scanProxy // nil: no proxy environment
	command          []string
	personas, hosts  []string
	faults           []examples.ScanFault
	upstreams        []scanUpstream
	files            []scanFile
	allowDestructive bool
}

type scanUpstream struct{ name, protocol, target string }
type scanFile struct{ name, content string }

func (f *scanFlags) plan(command []string, mf matrixFlags) (*scanPlan, error) {
	p := &scanPlan{flags: f, command: command, personas: splitList(mf.personas), hosts: splitList(mf.hosts),
		allowDestructive: f.allowDestructive}
	switch {
	case f.url == "" && len(command) == 0:
		return nil, errors.New("give the server's command after --, or its --url")
	case f.url != "" && len(command) > 0:
		return nil, errors.New("give a command after -- or a --url, not both")
	case f.url == "" && len(f.headers) > 0:
		return nil, errors.New("--header is sent to a server at --url; a command's server gets its settings with --env")
	}
	if len(p.personas) == 0 {
		p.personas = []string{scenario.DefaultPersona}
	}
	if len(p.hosts) == 0 {
		p.hosts = []string{"swallow", "raw"}
	}
	for _, kv := range f.upstreams {
		u := scanUpstream{name: kv.name, target: kv.value, protocol: inject.ProtocolTCP}
		if strings.HasPrefix(kv.value, "http://") || strings.HasPrefix(kv.value, "https://") || strings.HasPrefix(kv.value, scenario.BuiltinPrefix) {
			u.protocol = inject.ProtocolHTTP
		}
		p.upstreams = append(p.upstreams, u)
	}
	for _, kv := range f.files {
		data, err := readBounded(kv.value, scenario.MaxFileContent)
		if err != nil {
			return nil, fmt.Errorf("--file %s: %w", kv.name, err)
		}
		p.files = append(p.files, scanFile{name: kv.name, content: string(data)})
	}
	var err error
	if p.faults, err = scanFaults(f.faults); err != nil {
		return nil, err
	}
	if p.proxy, err = f.proxy.plan(f.url != "", len(p.upstreams) > 0); err != nil {
		return nil, err
	}
	return p, nil
}

// scanFaults is the default fault set, or the kinds --faults names (each
// with the default's parameters when the defaults have that kind).
func scanFaults(list string) ([]examples.ScanFault, error) {
	defaults := examples.ScanFaults()
	if list == "" {
		return defaults, nil
	}
	var out []examples.ScanFault
	for _, k := range splitList(list) {
		if _, ok := inject.Kind(k); !ok {
			return nil, fmt.Errorf("--faults: %q is not a fault kind (%s)", k, strings.Join(inject.KindNames(), ", "))
		}
		f := examples.ScanFault{Name: k, Fault: map[string]any{"kind": k}, Write: true, Read: true}
		for _, d := range defaults {
			if d.Fault["kind"] == k {
				f.Name, f.Fault = d.Name, d.Fault
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// head writes the scenario's server, upstreams, files and agent.
func (p *scanPlan) head(b *bytes.Buffer) {
	fmt.Fprintf(b, "# Generated by mcpchaos scan; \"mcpchaos run FILE\" replays it. Edit from here:\n# docs/scenarios.md is the reference.\nname: %s\nserver:\n", scanName)
	if p.flags.url != "" {
		fmt.Fprintf(b, "  url: %s\n", yv(p.flags.url))
		if len(p.flags.headers) > 0 {
			b.WriteString("  headers:\n")
			for _, h := range p.flags.headers {
				fmt.Fprintf(b, "    %s: %s\n", yv(h.name), yv(h.value))
			}
		}
	} else {
		fmt.Fprintf(b, "  command: %s\n", yv(p.command))
	}
	if len(p.flags.env) > 0 {
		b.WriteString("  env:\n")
		for _, kv := range p.flags.env {
			fmt.Fprintf(b, "    %s: %s\n", yv(kv.name), yv(kv.value))
		}
	}
	p.proxy.head(b)
	if len(p.upstreams) > 0 {
		b.WriteString("upstreams:\n")
		for _, u := range p.upstreams {
			fmt.Fprintf(b, "  - %s\n", yamlKV("name", u.name, "protocol", u.protocol, "target", u.target))
		}
	}
	if len(p.files) > 0 {
		b.WriteString("files:\n")
		for _, f := range p.files {
			fmt.Fprintf(b, "  %s: %s\n", yv(f.name), js(f.content))
		}
	}
	fmt.Fprintf(b, "agent:\n  personas: %s\n  hosts: %s\n  budget: %d\n", yv(p.personas), yv(p.hosts), scanBudget)
}

// discoveryScenario is the head alone, with a step that is never run:
// enough to start the server and list its tools.
func (p *scanPlan) discoveryScenario() (*scenario.Scenario, error) {
	var b bytes.Buffer
	p.head(&b)
	b.WriteString("steps:\n  - tool: tools/list\n")
	return scenario.Parse(scanName+".yaml", b.Bytes())
}

// js writes v as JSON, which is YAML too: quoting is never in doubt.
func js(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

func compactJSON(v any) string { return js(v) }

func readBounded(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}

// pairFlags collect NAME=VALUE flags in order; a name given twice is an
// error.
type pairFlags []pair

type pair struct{ name, value string }

func (p *pairFlags) String() string { return "" }

func (p *pairFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("%q: want NAME=VALUE", s)
	}
	if slices.ContainsFunc(*p, func(x pair) bool { return x.name == name }) {
		return fmt.Errorf("%q given twice", name)
	}
	if len(*p) >= maxPairs {
		return fmt.Errorf("more than %d", maxPairs)
	}
	*p = append(*p, pair{name, value})
	return nil
}

// listFlags collect repeatable (or comma-separated) names.
type listFlags []string

func (l *listFlags) String() string { return strings.Join(*l, ",") }

func (l *listFlags) Set(s string) error {
	*l = append(*l, splitList(s)...)
	return nil
}
