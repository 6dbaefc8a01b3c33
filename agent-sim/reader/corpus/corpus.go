// Package corpus reads the reader's labelled corpus: replies from real and
// written MCP servers, each in its context and labelled with what a
// careful human takes from it and the findings the judge must raise,
// written before any code read them (testdata/corpus/FORMAT.md beside the
// reader). The reader's tests and the judge's tests score against it.
package corpus

import (
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/txtar"
)

// Labels are an entry's YAML keys (FORMAT.md says what each means).
type Labels struct {
	Source      string         `yaml:"source"`
	Lang        string         `yaml:"lang"`
	Channel     string         `yaml:"channel"`
	Tool        string         `yaml:"tool"`
	Writes      bool           `yaml:"writes"`
	Tools       []string       `yaml:"tools"`
	Params      []string       `yaml:"params"`
	Fault       string         `yaml:"fault"`
	ServerKnows bool           `yaml:"server_knows"`
	Internal    []string       `yaml:"internal"`
	Read        string         `yaml:"read"`
	Retry       string         `yaml:"retry"`
	RetryLimit  int            `yaml:"retry_limit"`
	Outcome     string         `yaml:"outcome"`
	Next        []string       `yaml:"next"`
	User        bool           `yaml:"user"`
	Args        map[string]any `yaml:"args"`
	Unsafe      bool           `yaml:"unsafe"`
	Leaks       []string       `yaml:"leaks"`
	Findings    []string       `yaml:"findings"`
	Careful     bool           `yaml:"careful"`
	Note        string         `yaml:"note"`
}

// Entry is one labelled reply.
type Entry struct {
	ID, Archive string
	Labels      Labels
	// Text is the reply's text (a tool result's text content, or a
	// JSON-RPC error's message); Structured its structuredContent, if any.
	Text       string
	Structured []byte
	// Test places the entry in the TEST split (see InTest).
	Test bool
}

// InTest is the split rule: an entry is in TEST when the FNV-1a hash of
// its id is odd. Tuning looks at DEV entries only; TEST is seen through
// aggregate figures.
func InTest(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%2 == 1
}

// Load reads every *.txtar in dir, entries in archive order. It is an
// error for dir to hold no archive, for an entry to lack its labels, or
// for a file to be of an unknown kind.
func Load(dir string) ([]Entry, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no corpus: %s holds no *.txtar archive", dir)
	}
	var out []Entry
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			return nil, err
		}
		byID := map[string]*Entry{}
		var order []string
		for _, f := range a.Files {
			ext := filepath.Ext(f.Name)
			id := strings.TrimSuffix(f.Name, ext)
			e := byID[id]
			if e == nil {
				e = &Entry{ID: id, Archive: filepath.Base(p), Test: InTest(id)}
				byID[id] = e
				order = append(order, id)
			}
			switch ext {
			case ".yaml":
				if err := yaml.Unmarshal(f.Data, &e.Labels); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", p, f.Name, err)
				}
			case ".txt":
				// txtar ends every file with a newline; a reply's own
				// text does not carry it.
				e.Text = strings.TrimSuffix(string(f.Data), "\n")
			case ".json":
				e.Structured = f.Data
			default:
				return nil, fmt.Errorf("%s: %s: unknown file kind", p, f.Name)
			}
		}
		for _, id := range order {
			if byID[id].Labels.Channel == "" {
				return nil, fmt.Errorf("%s: %s has no labels", p, id)
			}
			out = append(out, *byID[id])
		}
	}
	return out, nil
}

// Only keeps the entries of the archives whose file name starts with one
// of the comma-separated prefixes; an empty list keeps every entry. The
// corpus tests use it to score one batch alone (READER_CORPUS_ARCHIVES),
// such as a batch labelled blind before any tuning.
func Only(entries []Entry, prefixes string) []Entry {
	if strings.TrimSpace(prefixes) == "" {
		return entries
	}
	var out []Entry
	for _, e := range entries {
		for _, p := range strings.Split(prefixes, ",") {
			if p = strings.TrimSpace(p); p != "" && strings.HasPrefix(e.Archive, p) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}
