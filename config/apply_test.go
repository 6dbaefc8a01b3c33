package config

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpchaos/mcpchaos/inject"
)

func TestApplyExample(t *testing.T) {
	defer goleak.VerifyNone(t)
	f, err := Load("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := inject.New(inject.Options{Seed: *f.Seed, DefaultTTL: f.DefaultTTL, MaxTTL: f.MaxTTL})
	defer r.Close()
	if err := f.Apply(r); err != nil {
		t.Fatal(err)
	}
	ups := r.Upstreams()
	if len(ups) != 2 || ups[0].Name != "carrier" || strings.HasSuffix(ups[0].Listen, ":0") {
		t.Errorf("upstreams %+v", ups)
	}
	if got := len(r.Table().Rules()); got != 3 {
		t.Errorf("%d rules", got)
	}
}

func TestApplyListenInUse(t *testing.T) {
	defer goleak.VerifyNone(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	src := fmt.Sprintf("upstreams:\n  - name: a\n    target: 127.0.0.1:1\n  - name: b\n    listen: %s\n    target: 127.0.0.1:1\n", ln.Addr())
	f, err := Parse("busy.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r := inject.New(inject.Options{})
	defer r.Close()
	err = f.Apply(r)
	var ce *Error
	if !errors.As(err, &ce) || ce.Line != 5 || ce.Field != "upstreams[1].listen" {
		t.Fatalf("got %v", err)
	}
}

func TestLocateRuleError(t *testing.T) {
	f, err := Parse("t.yaml", []byte("rules:\n  - name: a\n    fault: {kind: reset}\n  - name: b\n    upstream: ghost\n    fault: {kind: reset}\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := inject.New(inject.Options{})
	defer r.Close()
	// The file declares no upstreams, so the registry is the one to
	// notice the unknown upstream; the error still names the line.
	err = f.Apply(r)
	if err == nil || !strings.HasPrefix(err.Error(), "t.yaml:5: rules[1].upstream: ") || !errors.Is(err, inject.ErrUnknownUpstream) {
		t.Fatalf("got %v", err)
	}
}
