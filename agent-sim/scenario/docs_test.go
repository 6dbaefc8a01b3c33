package scenario

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/rules"
)

// scenariosDoc is the scenario reference, relative to this package.
const scenariosDoc = "../../docs/scenarios.md"

// parserFieldNames reads the field names the scenario parser accepts from
// its source: every package-level []string var named *Fields, and every
// literal key list given to Mapping(...). Reading the source, rather than
// keeping a list here, is what makes a new field fail this test until it
// is documented.
func parserFieldNames(t *testing.T) (fields map[string][]string) {
	t.Helper()
	var files []string
	for _, pat := range []string{"*.go", "../../config/*.go"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	fields = map[string][]string{} // source of the list → its names
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch v := n.(type) {
			case *ast.ValueSpec:
				for i, name := range v.Names {
					if !strings.HasSuffix(name.Name, "Fields") || i >= len(v.Values) {
						continue
					}
					if lit, ok := v.Values[i].(*ast.CompositeLit); ok {
						fields[name.Name] = stringLits(t, lit.Elts)
					}
				}
			case *ast.CallExpr:
				if sel, ok := v.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Mapping" && len(v.Args) > 0 {
					if names := stringLits(t, v.Args); len(names) == len(v.Args) {
						fields[fset.Position(v.Pos()).String()] = names
					}
				}
			}
			return true
		})
	}
	return fields
}

// stringLits returns the values of the string literals among exprs.
func stringLits(t *testing.T, exprs []ast.Expr) []string {
	var out []string
	for _, e := range exprs {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
	}
	return out
}

// exprNames returns the names an expression can read from env: its
// `expr` tags.
func exprNames(env any) []string {
	var out []string
	rt := reflect.TypeOf(env)
	for i := range rt.NumField() {
		if tag := rt.Field(i).Tag.Get("expr"); tag != "" {
			out = append(out, tag)
		}
	}
	return out
}

// TestDocsScenarioFields checks that docs/scenarios.md names, as code
// (`name`), every field the parser accepts and every name a rule's when,
// a side-effect matcher and a probe expression can read.
func TestDocsScenarioFields(t *testing.T) {
	doc, err := os.ReadFile(scenariosDoc)
	if err != nil {
		t.Fatal(err)
	}
	fields := parserFieldNames(t)
	// Guard against a parse of the source that finds nothing and so
	// checks nothing.
	for _, want := range []string{"scenarioFields", "serverFields", "agentFields", "sideEffectFields", "upstreamFields", "ruleFields", "fileFields"} {
		if len(fields[want]) == 0 {
			t.Errorf("found no %s in the parser's source; the test no longer sees the field lists", want)
		}
	}
	if len(fields) < 10 {
		t.Errorf("found %d field lists, want the *Fields vars and the Mapping(...) key lists: %v", len(fields), fields)
	}
	for _, src := range slices.Sorted(func(yield func(string) bool) {
		for k := range fields {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, name := range fields[src] {
			if !bytes.Contains(doc, []byte("`"+name+"`")) {
				t.Errorf("%s does not document field `%s` (from %s)", scenariosDoc, name, src)
			}
		}
	}
	for what, env := range map[string]any{"rule when (rules.Env)": rules.Env{}, "side-effect match (ExchangeEnv)": ExchangeEnv{}, "probe expr": probeEnv{}} {
		for _, name := range exprNames(env) {
			if !bytes.Contains(doc, []byte("`"+name+"`")) {
				t.Errorf("%s does not document `%s`, which a %s can read", scenariosDoc, name, what)
			}
		}
	}
	for _, tmpl := range []string{`{{ upstream "x" }}`, `{{ upstream_addr "x" }}`, `{{ target "x" }}`, `{{ target_addr "x" }}`, `{{ file "x" }}`, `{{ mcpchaos }}`} {
		if !bytes.Contains(doc, []byte("`"+tmpl+"`")) {
			t.Errorf("%s does not document the template %s", scenariosDoc, tmpl)
		}
	}
}

// yamlBlock is a ```yaml fence of a Markdown file.
type yamlBlock struct {
	line int // of the block's first line of YAML, 1-based
	text string
}

func yamlBlocks(t *testing.T, path string) []yamlBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []yamlBlock
	var cur *yamlBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```yaml":
			cur = &yamlBlock{line: n + 1}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: the yaml block is not closed", path, cur.line-1)
	}
	return out
}

// TestDocsScenarioExamples parses every complete scenario of
// docs/scenarios.md (a ```yaml block that starts with name:) as the
// parser would a file, and checks that the three kinds of example the
// page promises are there.
func TestDocsScenarioExamples(t *testing.T) {
	var stdio, overHTTP, tcpProbe bool
	complete := 0
	for _, b := range yamlBlocks(t, scenariosDoc) {
		if !strings.HasPrefix(b.text, "name:") {
			continue // a fragment that illustrates one section
		}
		complete++
		// Blank lines in front keep the parser's line numbers those of
		// the Markdown file, so a failure points into the page.
		src := strings.Repeat("\n", b.line-1) + b.text
		sc, err := Parse(filepath.ToSlash(filepath.Clean(scenariosDoc)), []byte(src))
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		stdio = stdio || len(sc.Server.Command) > 0
		overHTTP = overHTTP || sc.Server.URL != ""
		hasTCP := slices.ContainsFunc(sc.Upstreams, func(u config.Upstream) bool { return u.Protocol == "tcp" })
		hasProbe := slices.ContainsFunc(sc.SideEffects, func(s SideEffectSpec) bool { return s.Probe != nil })
		tcpProbe = tcpProbe || (hasTCP && hasProbe)
	}
	if complete < 3 {
		t.Errorf("%s has %d complete examples (```yaml blocks starting with name:), want at least 3", scenariosDoc, complete)
	}
	if !stdio || !overHTTP || !tcpProbe {
		t.Errorf("%s examples: stdio server %t, HTTP server %t, TCP upstream with a probe %t; want all three", scenariosDoc, stdio, overHTTP, tcpProbe)
	}
}
