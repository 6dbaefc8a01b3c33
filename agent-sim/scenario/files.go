package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
)

// Limits on a scenario's files.
const (
	// MaxFiles bounds how many files one scenario renders.
	MaxFiles = 32
	// MaxFileContent bounds one file's template, in bytes.
	MaxFileContent = 256 << 10
)

// fileNameRE is a file's name: one path element, no leading dot, so
// that a rendered file cannot land outside the run's directory.
var fileNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)

// FileSpec is a file the server needs (a kubeconfig, a config.yaml),
// written as a template: the run renders it with the server's templates
// ({{ upstream "name" }}, ...) into its own temporary directory, which is
// removed when the run ends, and {{ file "name" }} is its path.
type FileSpec struct {
	Name    string
	Content string
	Line    int
}

func (sc *Scenario) decodeFiles(n config.Node) error {
	m, err := n.Mapping()
	if err != nil {
		return err
	}
	if len(m.Keys()) > MaxFiles {
		return n.Errorf(config.ErrInvalid, "%d files, more than %d", len(m.Keys()), MaxFiles)
	}
	for _, name := range m.Keys() {
		v := m.Get(name)
		if !fileNameRE.MatchString(name) {
			return v.Errorf(config.ErrInvalid, "%q is not a file name: letters, digits, '.', '-' and '_', not starting with '.', at most 64", name)
		}
		content, err := v.String()
		if err != nil {
			return err
		}
		if len(content) > MaxFileContent {
			return v.Errorf(config.ErrInvalid, "%d bytes, more than %d", len(content), MaxFileContent)
		}
		sc.Files = append(sc.Files, FileSpec{Name: name, Content: content, Line: v.Line()})
	}
	// Every template is checked now, with stand-in addresses, so that a
	// mistake is reported at its line rather than when a run starts.
	fake := fakeUpstreams(sc.Upstreams)
	paths := sc.filePaths("files")
	for _, f := range sc.Files {
		if _, err := expandTemplateFiles(f.Content, fake, "mcpchaos", paths); err != nil {
			return m.Get(f.Name).Errorf(config.ErrInvalid, "%v", err)
		}
	}
	return nil
}

// fakeUpstreams stands in for running upstreams when templates are
// checked at parse time.
func fakeUpstreams(ups []config.Upstream) []inject.UpstreamInfo {
	out := make([]inject.UpstreamInfo, 0, len(ups))
	for _, u := range ups {
		out = append(out, inject.UpstreamInfo{Name: u.Name, Protocol: u.Protocol, Listen: "127.0.0.1:1", Target: u.Target})
	}
	return out
}

// filePaths maps each file's name to its path under dir.
func (sc *Scenario) filePaths(dir string) map[string]string {
	out := make(map[string]string, len(sc.Files))
	for _, f := range sc.Files {
		out[f.Name] = filepath.Join(dir, f.Name)
	}
	return out
}

// RenderedFiles are a run's files: their paths, and how to remove them.
type RenderedFiles struct {
	paths map[string]string
	dir   string
}

// Remove deletes the run's directory (nothing when there is none).
func (r *RenderedFiles) Remove() error {
	if r.dir == "" {
		return nil
	}
	if err := os.RemoveAll(r.dir); err != nil {
		return fmt.Errorf("files: removing %s: %w", r.dir, err)
	}
	return nil
}

// ResolveServerRun is [Scenario.ResolveServer] for a run: it renders the
// scenario's files into a fresh temporary directory first. The returned
// files are never nil, also on error; their remove is to be called once
// the server has exited.
func (sc *Scenario) ResolveServerRun(ups []inject.UpstreamInfo, self string) (driver.ServerSpec, *RenderedFiles, error) {
	files := &RenderedFiles{}
	if len(sc.Files) == 0 {
		s, err := sc.ResolveServer(ups, self)
		return s, files, err
	}
	dir, err := os.MkdirTemp("", "mcpchaos-files-")
	if err != nil {
		return driver.ServerSpec{}, files, fmt.Errorf("files: %w", err)
	}
	files.dir, files.paths = dir, sc.filePaths(dir)
	for _, f := range sc.Files {
		out, err := expandTemplateFiles(f.Content, ups, self, files.paths)
		if err == nil {
			// 0600: a kubeconfig or a config file may hold credentials.
			err = os.WriteFile(files.paths[f.Name], []byte(out), 0o600)
		}
		if err != nil {
			return driver.ServerSpec{}, files, errors.Join(fmt.Errorf("files: %s: %w", f.Name, err), files.Remove())
		}
	}
	s, err := sc.resolveServer(ups, self, files.paths)
	return s, files, err
}

// Placeholders maps each rendered file's path to the template that names
// it, {{ file "name" }}, for the report (see redactor): the directory is
// new for every run.
func (r *RenderedFiles) Placeholders() map[string]string {
	out := make(map[string]string, len(r.paths)+1)
	for name, p := range r.paths {
		out[p] = `{{ file "` + name + `" }}`
	}
	return out
}
