package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

func TestParseExample(t *testing.T) {
	f, err := Load(filepath.Join("testdata", "example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Specs(); !cmp.Equal(got, []inject.UpstreamSpec{
		{Name: "carrier", Protocol: "http", Listen: "127.0.0.1:0", Target: "http://127.0.0.1:9000"},
		{Name: "db", Protocol: "tcp", Listen: "127.0.0.1:0", Target: "127.0.0.1:5432"},
	}) {
		t.Errorf("upstreams: %+v", got)
	}
	half := 0.5
	want := []rules.Rule{
		{Name: "lose the create reply", Upstream: "carrier", When: `method == "POST" && path == "/shipments"`,
			Fault: rules.FaultSpec{Kind: "response_lost", Params: map[string]any{"mode": "hang"}}, Probability: &half, Limit: 10},
		{Name: "slow lookups", Upstream: "carrier", When: `method == "GET"`,
			Fault: rules.FaultSpec{Kind: "latency", Params: map[string]any{"delay": "800ms", "jitter": "200ms"}}},
		{Name: "database down", Upstream: "db", Fault: rules.FaultSpec{Kind: "unreachable", Params: map[string]any{"mode": "refuse"}},
			TTL: 5 * time.Minute, Disabled: true},
	}
	if d := cmp.Diff(want, f.RuleSet()); d != "" {
		t.Errorf("rules (-want +got):\n%s", d)
	}
	if f.Seed == nil || *f.Seed != 42 || f.DefaultTTL != 15*time.Minute || f.MaxTTL != time.Hour {
		t.Errorf("seed %v, default_ttl %v, max_ttl %v", f.Seed, f.DefaultTTL, f.MaxTTL)
	}
	if f.Rules[1].Line() != 25 || f.Upstreams[1].Line() != 10 {
		t.Errorf("lines: rule %d, upstream %d", f.Rules[1].Line(), f.Upstreams[1].Line())
	}
}

func TestParseGood(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		check     func(t *testing.T, f *File)
	}{
		{"empty", "", func(t *testing.T, f *File) {
			if len(f.Upstreams)+len(f.Rules) != 0 || f.Seed != nil {
				t.Errorf("%+v", f)
			}
		}},
		{"comments only", "# nothing\n", nil},
		{"never expires", "default_ttl: never\n", func(t *testing.T, f *File) {
			if f.DefaultTTL != -1 {
				t.Errorf("default_ttl %v", f.DefaultTTL)
			}
		}},
		{"numbers in params", "rules:\n  - name: cut\n    fault: {kind: partial_write, bytes: 10}\n", func(t *testing.T, f *File) {
			if got := f.Rules[0].Fault.Params["bytes"]; got != int64(10) {
				t.Errorf("bytes %T %v", got, got)
			}
		}},
		{"probability zero kept", "rules:\n  - name: off\n    fault: {kind: reset}\n    probability: 0\n", func(t *testing.T, f *File) {
			if p := f.Rules[0].Probability; p == nil || *p != 0 {
				t.Errorf("probability %v", p)
			}
		}},
		{"anchors", "x: &f {kind: timeout}\n", nil},
		{"alias reuse", "rules:\n  - name: a\n    fault: &f {kind: http_error, status: 503}\n  - name: b\n    fault: *f\n", func(t *testing.T, f *File) {
			if f.Rules[1].Fault.Kind != "http_error" || f.Rules[1].Fault.Params["status"] != int64(503) {
				t.Errorf("%+v", f.Rules[1].Fault)
			}
		}},
		{"rule for any upstream", "upstreams:\n  - {name: a, target: 127.0.0.1:1}\nrules:\n  - name: r\n    fault: {kind: reset}\n", nil},
		{"literal when", "rules:\n  - name: r\n    when: |\n      method == \"POST\"\n    fault: {kind: reset}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("t.yaml", []byte(tc.src))
			if tc.name == "anchors" {
				if err == nil || !errors.Is(err, ErrUnknownField) {
					t.Fatalf("want unknown field x, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, f)
			}
		})
	}
}

func TestParseBad(t *testing.T) {
	const head = "upstreams:\n  - name: carrier\n    protocol: http\n    target: http://127.0.0.1:9000\nrules:\n  - name: r\n    upstream: carrier\n"
	for _, tc := range []struct {
		name, src string
		want      string // the whole message, file:line[:col]: field: msg
		is        error
	}{
		{"syntax", "rules: [\n  a: b\n", "t.yaml:1: ", ErrSyntax},
		{"two documents", "seed: 1\n---\nseed: 2\n", "t.yaml:3: only one YAML document", ErrSyntax},
		{"top unknown", "upstreams: []\nrulez: []\n", `t.yaml:2: rulez: unknown field "rulez" (did you mean "rules"?)`, ErrUnknownField},
		{"top not mapping", "- a\n", "t.yaml:1: must be a mapping", ErrType},
		{"seed negative", "seed: -1\n", "t.yaml:1: seed: must not be negative", ErrInvalid},
		{"max_ttl word", "max_ttl: forever\n", `t.yaml:1: max_ttl: "forever" is not a duration (write it like 250ms, 2s or 1m30s)`, ErrInvalid},
		{"upstreams not list", "upstreams: {name: a}\n", "t.yaml:1: upstreams: must be a list", ErrType},
		{"upstream unknown field", "upstreams:\n  - name: a\n    targte: x\n", `t.yaml:3: upstreams[0].targte: unknown field "targte" (did you mean "target"?)`, ErrUnknownField},
		{"upstream protocol", "upstreams:\n  - name: a\n    protocol: udp\n    target: 127.0.0.1:1\n", `t.yaml:3: upstreams[0].protocol: must be tcp or http (or mcp, an MCP front), not "udp"`, nil},
		{"upstream target missing", "upstreams:\n  - name: a\n", "t.yaml:2: upstreams[0].target: is required", nil},
		{"upstream listen", "upstreams:\n  - name: a\n    listen: nope\n    target: 127.0.0.1:1\n", `t.yaml:3: upstreams[0].listen: must be host:port, not "nope"`, nil},
		{"upstream duplicate", "upstreams:\n  - {name: a, target: 127.0.0.1:1}\n  - {name: a, target: 127.0.0.1:2}\n", `t.yaml:3: upstreams[1].name: upstream "a" is declared twice`, ErrDuplicate},
		{"rule name missing", "rules:\n  - fault: {kind: reset}\n", "t.yaml:2: rules[0].name: is required", ErrRequired},
		{"rule duplicate", "rules:\n  - {name: a, fault: {kind: reset}}\n  - {name: a, fault: {kind: reset}}\n", `t.yaml:3: rules[1].name: rule "a" is declared twice`, ErrDuplicate},
		{"rule unknown field", head + "    wen: x\n", `t.yaml:8: rules[0].wen: unknown field "wen" (did you mean "when"?)`, ErrUnknownField},
		{"rule upstream typo", head[:len(head)-len("    upstream: carrier\n")] + "    upstream: carier\n    fault: {kind: reset}\n", `t.yaml:7: rules[0].upstream: "carier" is not declared under upstreams (did you mean "carrier"?)`, ErrInvalid},
		{"fault missing", head, "t.yaml:6: rules[0].fault: is required", ErrRequired},
		{"fault kind missing", head + "    fault: {mode: hang}\n", "t.yaml:8: rules[0].fault.kind: is required", nil},
		{"fault kind unknown", head + "    fault:\n      kind: slow\n", `t.yaml:9: rules[0].fault.kind: "slow" is not a fault kind`, nil},
		{"fault duration", head + "    fault:\n      kind: latency\n      delay: fast\n", `t.yaml:10: rules[0].fault.delay: "fast" is not a duration (write it like 250ms, 2s or 1m30s)`, nil},
		{"fault duration number", head + "    fault:\n      kind: latency\n      jitter: 1s\n      delay: 5\n", `t.yaml:11: rules[0].fault.delay: 5 is not a duration`, nil},
		{"fault param unknown", head + "    fault:\n      kind: latency\n      delay: 1s\n      dealy: 2s\n", `t.yaml:11: rules[0].fault.dealy: is not a parameter of latency`, nil},
		{"fault param type", head + "    fault:\n      kind: partial_write\n      bytes: lots\n", `t.yaml:10: rules[0].fault.bytes: must be a int64, not a string`, nil},
		{"fault nested param", head + "    fault:\n      kind: http_error\n      headers:\n        Retry-After: 30\n", `t.yaml:11: rules[0].fault.headers: must be a string, not a number`, nil},
		{"fault mode", head + "    fault: {kind: response_lost, mode: drop}\n", `t.yaml:8: rules[0].fault.mode: must be hang or reset, not "drop"`, nil},
		{"probability range", head + "    fault: {kind: reset}\n    probability: 1.5\n", "t.yaml:9: rules[0].probability: must be within [0, 1], got 1.5", nil},
		{"probability word", head + "    fault: {kind: reset}\n    probability: half\n", "t.yaml:9: rules[0].probability: must be a number, not a string", ErrType},
		{"limit negative", head + "    fault: {kind: reset}\n    limit: -1\n", "t.yaml:9: rules[0].limit: must not be negative", nil},
		{"limit float", head + "    fault: {kind: reset}\n    limit: 1.5\n", "t.yaml:9: rules[0].limit: must be a whole number, not a number (1.5)", ErrType},
		{"ttl", head + "    fault: {kind: reset}\n    ttl: 10\n", `t.yaml:9: rules[0].ttl: "10" is not a duration`, ErrInvalid},
		{"enabled", head + "    fault: {kind: reset}\n    enabled: yes please\n", "t.yaml:9: rules[0].enabled: must be true or false", ErrType},
		{"when unknown name", head + "    when: metod == \"POST\"\n    fault: {kind: reset}\n", "t.yaml:8:11: rules[0].when: unknown name metod", nil},
		{"when quoted", head + "    when: 'method == 1'\n    fault: {kind: reset}\n", "t.yaml:8:", nil},
		{"when literal", head + "    when: |\n      method == \"POST\" &&\n        atempt == 1\n    fault: {kind: reset}\n", "t.yaml:10:9: rules[0].when: unknown name atempt", nil},
		{"kind for protocol", "upstreams:\n  - {name: db, target: 127.0.0.1:1}\nrules:\n  - name: r\n    upstream: db\n    fault: {kind: http_error}\n", `t.yaml:6: rules[0].fault.kind: http_error does not apply to tcp upstream "db"`, ErrInvalid},
		{"merge key", "rules:\n  - <<: {name: a}\n", "t.yaml:2: rules[0]: merge keys", ErrUnknownField},
		{"duplicate key", "seed: 1\nseed: 2\n", `t.yaml:2: mapping key "seed" already defined`, ErrSyntax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(tc.src))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("want *Error, got %T %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got  %s\nwant %s…", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(%v) false for %v", tc.is, err)
			}
		})
	}
}

func TestErrorsUnwrapToCauses(t *testing.T) {
	src := "rules:\n  - name: r\n    when: nope\n    fault: {kind: reset}\n"
	_, err := Parse("t.yaml", []byte(src))
	var ee *rules.ExprError
	if !errors.As(err, &ee) || ee.Rule != "r" {
		t.Errorf("want *rules.ExprError, got %v", err)
	}
	src = "upstreams:\n  - {name: a}\n"
	_, err = Parse("t.yaml", []byte(src))
	var se *inject.SpecError
	if !errors.As(err, &se) || se.Field != "target" {
		t.Errorf("want *inject.SpecError, got %v", err)
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	var ce *Error
	if !errors.As(err, &ce) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v", err)
	}
}

func TestLoadTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(p, make([]byte, MaxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); !errors.Is(err, ErrInvalid) {
		t.Errorf("got %v", err)
	}
}

func TestDecodeUpstreamsBuiltin(t *testing.T) {
	src := "upstreams:\n  - {name: carrier, protocol: http, target: 'builtin:carrier'}\n"
	root, err := Document("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := root.Mapping()
	ups, err := DecodeUpstreamsBuiltin(m.Get("upstreams"), "builtin:")
	if err != nil || len(ups) != 1 || ups[0].Target != "builtin:carrier" {
		t.Fatalf("%v %+v", err, ups)
	}
	root, _ = Document("t.yaml", []byte("upstreams:\n  - {name: c, target: 'builtin:'}\n"))
	m, _ = root.Mapping()
	if _, err := DecodeUpstreamsBuiltin(m.Get("upstreams"), "builtin:"); err == nil || !strings.HasPrefix(err.Error(), "t.yaml:2: upstreams[0].target: ") {
		t.Errorf("got %v", err)
	}
}
