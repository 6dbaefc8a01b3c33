package scenario

import (
	"strings"
	"testing"
)

const varsScenario = `name: vars
server:
  url: {{ var "SERVER" }}
upstreams:
  - name: carrier
    protocol: http
    target: {{var "CARRIER"}}
steps:
  - tool: create_order
    args: {order_id: '{{ var "ORDER" }}'}
`

func TestParseScenarioVars(t *testing.T) {
	all := map[string]string{"SERVER": "http://172.17.0.1:4321/mcp", "CARRIER": "http://carrier:8080", "ORDER": "A-1"}
	sc, err := ParseVars("s.yaml", []byte(varsScenario), all)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Server.URL != all["SERVER"] || sc.Upstreams[0].Target != all["CARRIER"] || sc.Steps[0].Args["order_id"] != "A-1" {
		t.Errorf("not filled: url %q target %q args %v", sc.Server.URL, sc.Upstreams[0].Target, sc.Steps[0].Args)
	}
	without := func(k string) map[string]string {
		m := map[string]string{}
		for kk, v := range all {
			if kk != k {
				m[kk] = v
			}
		}
		return m
	}
	with := func(k, v string) map[string]string {
		m := without("")
		m[k] = v
		return m
	}
	tests := []struct {
		name string
		doc  string
		vars map[string]string
		want string
	}{
		{"missing", varsScenario, without("CARRIER"), `s.yaml:7: variable "CARRIER" is not set`},
		{"unused", varsScenario, with("SERVR", "x"), `variable "SERVR" is given but the scenario never uses it`},
		{"misspelt use", "server:\n  url: '{{ var SERVER }}'\n", nil, `s.yaml:2: template: a variable is written {{ var "NAME" }}`},
		{"line break", varsScenario, with("ORDER", "A-1'\nrules: []"), `variable "ORDER": the value holds a line break`},
		{"bad name", varsScenario, with("9X", "x"), `variable name "9X"`},
		{"long value", varsScenario, with("ORDER", strings.Repeat("x", MaxVarValue+1)), "longer than 4096 bytes"},
		// Without variables a document that uses one says which.
		{"none given", varsScenario, nil, `s.yaml:3: variable "SERVER" is not set`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseVars("s.yaml", []byte(tc.doc), tc.vars)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Parse("s.yaml", []byte(varsScenario)); err == nil || !strings.Contains(err.Error(), `"SERVER" is not set`) {
		t.Errorf("Parse with a variable: %v", err)
	}
}

// FuzzExpandVars: any document and value either expands to a document
// with no variable left or fails with an error; never a panic.
func FuzzExpandVars(f *testing.F) {
	f.Add(varsScenario, "http://h:1/mcp")
	f.Add(`{{ var "SERVER" }}{{ var "SERVER"`, "x")
	f.Add(`{{- var "SERVER" -}} {{ var`, "")
	f.Fuzz(func(t *testing.T, doc, value string) {
		out, _, err := ExpandVars("f.yaml", []byte(doc), map[string]string{"SERVER": value, "CARRIER": value, "ORDER": value})
		if err != nil {
			return
		}
		if varAnyRE.Match(out) && !strings.Contains(value, "{{") {
			t.Errorf("a variable is left in %q", out)
		}
	})
}
