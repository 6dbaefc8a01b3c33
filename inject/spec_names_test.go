package inject

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// kindNameExempt are the places outside inject that may name fault kinds,
// each for a reason: they are scenarios and fixtures, not a second
// description of the kinds.
var kindNameExempt = map[string]string{
	"examples":                   "scenarios, written by users",
	"docs":                       "user documentation, checked by TestFaultsDoc",
	"bench":                      "a benchmark harness that injects one chosen fault",
	"cmd/mcpchaos/demo.go":       "the built-in demo's scenario: the four faults it plays",
	"api/openapi_paths.go":       "the OpenAPI document's request examples",
	"api/types_fault.go":         "an example fault in an error message",
	"agent-sim/internal/simtest": "fixtures shared by the simulator's tests: what their rules' faults declare",
}

// TestNoKindNamesOutsideInject: kinds are described once, in inject. A
// source file elsewhere (Go, not tests; the dashboard's JS and HTML) that
// names a kind is a second description that will drift: read Kinds(),
// Params or /v1/kinds instead. Names that are also plain words (reset,
// timeout) count only as a quoted string on a line about a kind; comments
// do not count.
func TestNoKindNamesOutsideInject(t *testing.T) {
	var distinct, words []string
	for _, name := range KindNames() {
		if strings.Contains(name, "_") {
			distinct = append(distinct, name)
		} else {
			words = append(words, name)
		}
	}
	distinctRE := regexp.MustCompile(`\b(` + strings.Join(distinct, "|") + `)\b`)
	wordRE := regexp.MustCompile(`["'` + "`" + `](` + strings.Join(words, "|") + `)["'` + "`" + `]`)
	kindRE := regexp.MustCompile(`(?i)kind`)
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "inject" || rel == "testdata" || strings.HasSuffix(rel, "/testdata") || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			if _, ok := kindNameExempt[rel]; ok {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if strings.HasSuffix(path, "_test.go") || (ext != ".go" && ext != ".js" && ext != ".html") {
			return nil
		}
		if _, ok := kindNameExempt[rel]; ok {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "//") || strings.HasPrefix(l, "*") {
				continue // an example in a comment describes nothing
			}
			if m := distinctRE.FindString(line); m != "" {
				t.Errorf("%s:%d names the kind %s: %s", rel, i+1, m, strings.TrimSpace(line))
			} else if m := wordRE.FindString(line); m != "" && kindRE.MatchString(line) {
				t.Errorf("%s:%d names the kind %s: %s", rel, i+1, m, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
