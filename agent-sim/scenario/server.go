package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
)

var serverFields = []string{"command", "env", "dir", "url", "headers", "protocol", "proxy_env", "intercept_tls", "upstream_ca", "resolve"}

func (sc *Scenario) decodeServer(n config.Node) error {
	if !n.Present() {
		return n.Errorf(config.ErrRequired, "is required: a command (stdio) or a url (Streamable HTTP)")
	}
	m, err := n.Mapping(serverFields...)
	if err != nil {
		return err
	}
	s := &sc.Server
	cmd := m.Get("command")
	if s.Command, err = cmd.Strings(); err != nil {
		return err
	}
	if str, err := cmd.String(); err == nil && strings.ContainsAny(str, " \t") {
		if f := strings.Fields(str); len(f) > 1 {
			return cmd.Errorf(config.ErrInvalid, "write the command as a list, one argument each: [%q, ...]", f[0])
		}
	}
	if len(s.Command) > 0 && strings.TrimSpace(s.Command[0]) == "" {
		return cmd.Errorf(config.ErrInvalid, "the program name is empty")
	}
	if s.Env, err = m.Get("env").StringMap(); err != nil {
		return err
	}
	if s.Dir, err = m.Get("dir").String(); err != nil {
		return err
	}
	if s.URL, err = m.Get("url").String(); err != nil {
		return err
	}
	if s.Headers, err = m.Get("headers").StringMap(); err != nil {
		return err
	}
	if s.Protocol, err = m.Get("protocol").String(); err != nil {
		return err
	}
	if s.Protocol != "" && !slices.Contains(mcp.SupportedProtocolVersions(), s.Protocol) {
		return m.Get("protocol").Errorf(config.ErrInvalid, "%q is not a protocol version the driver speaks (%s; leave it out to negotiate)",
			s.Protocol, strings.Join(mcp.SupportedProtocolVersions(), ", "))
	}
	switch {
	case len(s.Command) == 0 && s.URL == "":
		return n.Errorf(config.ErrRequired, "needs a command (stdio) or a url (Streamable HTTP)")
	case len(s.Command) > 0 && s.URL != "":
		return m.Get("url").Errorf(config.ErrInvalid, "give a command or a url, not both")
	}
	if err := sc.checkProxyServer(m); err != nil {
		return err
	}
	// Check every template now, against the declared upstreams, so that
	// a typo is reported with its line rather than when the run starts.
	fake := fakeUpstreams(sc.Upstreams)
	paths := sc.filePaths("files")
	check := func(node config.Node, s string) error {
		if _, err := expandTemplateFiles(s, fake, "mcpchaos", paths); err != nil {
			return node.Errorf(config.ErrInvalid, "%v", err)
		}
		return nil
	}
	items, _ := cmd.Items()
	for i, arg := range s.Command {
		at := cmd
		if i < len(items) {
			at = items[i]
		}
		if err := check(at, arg); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		key string
		v   map[string]string
	}{{"env", s.Env}, {"headers", s.Headers}} {
		mm, _ := m.Get(f.key).Mapping()
		for k, v := range f.v {
			if err := check(mm.Get(k), v); err != nil {
				return err
			}
		}
	}
	if err := check(m.Get("dir"), s.Dir); err != nil {
		return err
	}
	return check(m.Get("url"), s.URL)
}

// ResolveServer returns the server spec with its templates filled from
// the running upstreams: {{ upstream "name" }} is the proxy's URL
// (http://127.0.0.1:port) for an http upstream and its host:port for a
// tcp one; {{ upstream_addr "name" }} is always host:port; {{ target
// "name" }} is the real upstream and {{ target_addr "name" }} its
// host:port; {{ mcpchaos }} is self, the path of the
// running mcpchaos binary (empty: not available). It renders no file:
// {{ file "name" }} gives the name alone (a run renders the files and
// gives their paths).
func (sc *Scenario) ResolveServer(ups []inject.UpstreamInfo, self string) (driver.ServerSpec, error) {
	return sc.resolveServer(ups, self, sc.filePaths(""))
}

func (sc *Scenario) resolveServer(ups []inject.UpstreamInfo, self string, files map[string]string) (driver.ServerSpec, error) {
	s := sc.Server
	var err error
	exp := func(v string) string {
		if err != nil {
			return v
		}
		var out string
		out, err = expandTemplateFiles(v, ups, self, files)
		return out
	}
	s.Command = slices.Clone(s.Command)
	for i := range s.Command {
		s.Command[i] = exp(s.Command[i])
	}
	s.Env = expandMap(s.Env, exp)
	s.Headers = expandMap(s.Headers, exp)
	s.Dir, s.URL = exp(s.Dir), exp(s.URL)
	return s, err
}

func expandMap(m map[string]string, exp func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = exp(v)
	}
	return out
}

// errNoSelf is returned for {{ mcpchaos }} outside the mcpchaos command.
var errNoSelf = errors.New("{{ mcpchaos }} names the running mcpchaos binary, and is only available when mcpchaos runs the scenario")

// expandTemplate fills the template functions of one string.
func expandTemplate(s string, ups []inject.UpstreamInfo, self string) (string, error) {
	return expandTemplateFiles(s, ups, self, nil)
}

// expandTemplateFiles is expandTemplate with the scenario's files: {{
// file "name" }} is the path in files.
func expandTemplateFiles(s string, ups []inject.UpstreamInfo, self string, files map[string]string) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	find := func(name string) (inject.UpstreamInfo, error) {
		for _, u := range ups {
			if u.Name == name {
				return u, nil
			}
		}
		return inject.UpstreamInfo{}, fmt.Errorf("%q is not declared under upstreams", name)
	}
	funcs := template.FuncMap{
		"upstream": func(name string) (string, error) {
			u, err := find(name)
			if u.Protocol == inject.ProtocolHTTP || u.Protocol == inject.ProtocolForward {
				return "http://" + u.Listen, err
			}
			return u.Listen, err
		},
		"upstream_addr": func(name string) (string, error) {
			u, err := find(name)
			return u.Listen, err
		},
		"target": func(name string) (string, error) {
			u, err := find(name)
			return u.Target, err
		},
		"target_addr": func(name string) (string, error) {
			u, err := find(name)
			return hostPort(u.Target), err
		},
		"file": func(name string) (string, error) {
			if p, ok := files[name]; ok {
				return p, nil
			}
			if len(files) == 0 {
				return "", fmt.Errorf("%q is not declared under files (none is)", name)
			}
			return "", fmt.Errorf("%q is not declared under files (declared: %s)", name, strings.Join(slices.Sorted(maps.Keys(files)), ", "))
		},
		"mcpchaos": func() (string, error) {
			if self == "" {
				return "", errNoSelf
			}
			return self, nil
		},
	}
	t, err := template.New("").Funcs(funcs).Option("missingkey=error").Parse(s)
	if err != nil {
		return "", cleanTemplateError(err)
	}
	if err := onlyUpstreamCalls(t); err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, nil); err != nil {
		return "", cleanTemplateError(err)
	}
	return b.String(), nil
}

// onlyUpstreamCalls refuses anything but text and {{ fn "name" }}: a
// scenario's templates name upstreams, and the full template language
// (range, with, nested calls) would only invite mistakes and runaway
// expansions.
func onlyUpstreamCalls(t *template.Template) error {
	if t.Tree == nil || t.Tree.Root == nil {
		return nil
	}
	for _, n := range t.Tree.Root.Nodes {
		switch v := n.(type) {
		case *parse.TextNode:
			continue
		case *parse.ActionNode:
			if v.Pipe != nil && len(v.Pipe.Decl) == 0 && len(v.Pipe.Cmds) == 1 {
				args := v.Pipe.Cmds[0].Args
				if id, ok := args[0].(*parse.IdentifierNode); ok && len(args) == 1 && id.Ident == "mcpchaos" {
					continue
				}
				if len(args) == 2 {
					_, isIdent := args[0].(*parse.IdentifierNode)
					_, isString := args[1].(*parse.StringNode)
					if isIdent && isString {
						continue
					}
				}
			}
		}
		return fmt.Errorf("template: only {{ upstream \"name\" }}, {{ upstream_addr \"name\" }}, {{ target \"name\" }}, {{ target_addr \"name\" }}, {{ file \"name\" }} and {{ mcpchaos }} are allowed, not %s", n)
	}
	return nil
}

// cleanTemplateError drops text/template's "template: :1:12: executing
// \"\" at <...>:" prefix, which names an anonymous template.
func cleanTemplateError(err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, "error calling "); i >= 0 {
		msg = msg[i:]
	} else {
		msg = strings.TrimPrefix(msg, "template: ")
	}
	return fmt.Errorf("template: %s", msg)
}
