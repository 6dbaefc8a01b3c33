package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/rules"
)

// TestScenarioLimits: a scenario cannot kill the process that parses it
// (`mcpchaos run`, or serve's POST /v1/runs): a when nested 400,000 deep,
// a deep side-effect match and arguments nested 100,000 deep are refused,
// naming the file, the line and, for an expression, the field and column.
func TestScenarioLimits(t *testing.T) {
	const head = "server: {command: [./s]}\nsteps:\n  - tool: create\n"
	tests := []struct {
		name, src    string
		line, column int
		field, msg   string
		is           error
	}{
		{name: "deep when", src: head + "rules:\n  - name: deep\n    fault: {kind: reset}\n    when: len(" +
			strings.Repeat("[", 400_000) + strings.Repeat("]", 400_000) + ") > 0\n",
			line: 7, column: 11 + 65536, field: "rules[0].when", msg: "expression over 65536 bytes (the limit)", is: rules.ErrExprLimit},
		{name: "when nested 101 deep", src: head + "rules:\n  - name: deep\n    fault: {kind: reset}\n    when: '" +
			strings.Repeat("(", 101) + "true" + strings.Repeat(")", 101) + "'\n",
			line: 7, column: 12 + 100, field: "rules[0].when", msg: "nesting deeper than 100 levels (the limit)", is: rules.ErrExprLimit},
		{name: "deep side-effect match", src: head + "side_effects:\n  - name: made\n    match: '" +
			strings.Repeat("!", 200) + "true'\n    intended: 1\n",
			line: 6, column: 13 + 100, field: "side_effects[0].match", msg: "nesting deeper than 100 levels (the limit)", is: rules.ErrExprLimit},
		{name: "deep arguments", src: "server: {command: [./s]}\nsteps:\n  - tool: create\n    args: {a: " +
			strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "}\n",
			line: 4, column: 14 + 97, msg: "nesting deeper than 100 levels (the limit)", is: config.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tt.src))
			var ce *config.Error
			if !errors.As(err, &ce) || !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want a located %v", err, tt.is)
			}
			if ce.File != "s.yaml" || ce.Line != tt.line || ce.Column != tt.column || ce.Field != tt.field || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("got %s:%d:%d field %q: %s; want line %d column %d field %q: %s",
					ce.File, ce.Line, ce.Column, ce.Field, ce.Msg, tt.line, tt.column, tt.field, tt.msg)
			}
		})
	}
}
