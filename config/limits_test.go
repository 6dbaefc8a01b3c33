package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/rules"
)

// TestDepthLimit: documents nested deeper than MaxDepth are refused at
// the token that goes too deep, before the YAML parser recurses into
// them (100,000 levels once took minutes and a 128 MiB stack; a 4 MiB
// file's 2,000,000 overflow it).
func TestDepthLimit(t *testing.T) {
	block := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat(" ", i) + "a:\n")
		}
		return b.String()
	}
	tests := []struct {
		name      string
		src       string
		line, col int // 0: accepted
	}{
		{name: "flow sequences", src: "x: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n", line: 1, col: 4 + 99},
		{name: "flow mappings", src: "x:\n  " + strings.Repeat("{a: ", 200) + "1" + strings.Repeat("}", 200) + "\n", line: 2, col: 3 + 4*99},
		{name: "block mappings", src: block(MaxDepth + 1), line: MaxDepth + 1, col: MaxDepth + 1},
		{name: "compact sequences", src: "x:\n" + strings.Repeat("- ", 300) + "y\n", line: 2, col: 1 + 2*99},
		{name: "at the limit", src: block(MaxDepth)},
		{name: "flow at the limit", src: "x: " + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + "\n"},
		{name: "brackets in scalars do not count", src: "x: 'a" + strings.Repeat("[", 300) + "'\ny: b" + strings.Repeat("{", 300) + "\n" +
			"z: |\n  " + strings.Repeat("[", 300) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Document("deep.yaml", []byte(tt.src))
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
				t.Errorf("allocated %d MiB", got>>20)
			}
			if tt.line == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "nesting deeper than 100 levels (the limit)") {
				t.Fatalf("err = %v, want the depth limit", err)
			}
			if ce.File != "deep.yaml" || ce.Line != tt.line || ce.Column != tt.col {
				t.Errorf("at %s:%d:%d, want deep.yaml:%d:%d", ce.File, ce.Line, ce.Column, tt.line, tt.col)
			}
		})
	}
}

// TestDeepWhenInFile: the when that overflowed expr-lang's parser is
// refused through `serve --config` with its file, line, column and field.
func TestDeepWhenInFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chaos.yaml")
	src := "rules:\n  - name: deep\n    fault: {kind: reset}\n    when: len(" +
		strings.Repeat("[", 400_000) + strings.Repeat("]", 400_000) + ") > 0\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	var ce *Error
	if !errors.As(err, &ce) || !errors.Is(err, rules.ErrExprLimit) {
		t.Fatalf("err = %v, want a located expression limit", err)
	}
	// The expression starts at column 11 of line 4; the limit is at its
	// 65,537th byte.
	if ce.File != path || ce.Line != 4 || ce.Column != 11+65536 || ce.Field != "rules[0].when" ||
		!strings.Contains(ce.Msg, "expression over 65536 bytes (the limit)") {
		t.Errorf("got %s:%d:%d field %q: %s", ce.File, ce.Line, ce.Column, ce.Field, ce.Msg)
	}
}
