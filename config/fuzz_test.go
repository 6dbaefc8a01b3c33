package config

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	if ex, err := os.ReadFile("testdata/example.yaml"); err == nil {
		f.Add(ex)
	}
	for _, s := range []string{
		"", "rules: [", "a: &x [*x]", "rules:\n  - name: r\n    when: |\n      a ==\n    fault: {kind: latency, delay: x}\n",
		"upstreams:\n  - {name: a, target: 127.0.0.1:1}\n", "x: &a [*a, *a]\ny: *a\n",
		"upstreams:\n  - {name: f, protocol: forward, intercept_tls: true, resolve: [a:1=b:2], hosts: [{name: l, host: l.test}], max_hosts: 3}\n", "seed: 18446744073709551615\n",
		"rules:\n  - <<: *x\n", "!!map {}", "? a\n: b\n",
		"x: " + strings.Repeat("[", 2*MaxDepth) + "\n", strings.Repeat("- ", 2*MaxDepth) + "x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("f.yaml", data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error is not *Error: %T %v", err, err)
			}
			if ce.File != "f.yaml" {
				t.Fatalf("error names %q", ce.File)
			}
			return
		}
		if file == nil {
			t.Fatal("nil file without error")
		}
	})
}
