package inject

import (
	"errors"
	"strings"
	"testing"
)

// TestUpstreamSpecValidate covers the addresses a hostile or careless
// user writes: each bad one is refused naming the field, before anything
// listens or dials.
func TestUpstreamSpecValidate(t *testing.T) {
	tests := []struct {
		name      string
		spec      UpstreamSpec
		wantField string // "" when valid
	}{
		{"tcp ok", UpstreamSpec{Name: "db", Target: "127.0.0.1:5432"}, ""},
		{"tcp name ok", UpstreamSpec{Name: "db", Target: "db.staging.internal:5432"}, ""},
		{"tcp ipv6 ok", UpstreamSpec{Name: "db", Target: "[::1]:5432"}, ""},
		{"http url ok", UpstreamSpec{Name: "c", Protocol: "http", Target: "http://127.0.0.1:9000"}, ""},
		{"http url slash ok", UpstreamSpec{Name: "c", Protocol: "http", Target: "http://carrier:8080/"}, ""},
		{"http hostport ok", UpstreamSpec{Name: "c", Protocol: "http", Target: "127.0.0.1:9000"}, ""},
		{"listen all ok", UpstreamSpec{Name: "c", Listen: ":7000", Target: "127.0.0.1:1"}, ""},
		{"listen name ok", UpstreamSpec{Name: "c", Listen: "localhost:0", Target: "127.0.0.1:1"}, ""},
		{"listen bad ip", UpstreamSpec{Name: "c", Listen: "999.1.1.1:0", Target: "127.0.0.1:1"}, "listen"},
		{"listen bad port", UpstreamSpec{Name: "c", Listen: "127.0.0.1:70000", Target: "127.0.0.1:1"}, "listen"},
		{"listen named port", UpstreamSpec{Name: "c", Listen: "127.0.0.1:http", Target: "127.0.0.1:1"}, "listen"},
		{"listen no port", UpstreamSpec{Name: "c", Listen: "127.0.0.1", Target: "127.0.0.1:1"}, "listen"},
		{"listen space", UpstreamSpec{Name: "c", Listen: "127.0.0.1:0 ", Target: "127.0.0.1:1"}, "listen"},
		{"tcp scheme", UpstreamSpec{Name: "c", Target: "http://127.0.0.1:9"}, "target"},
		{"tcp userinfo", UpstreamSpec{Name: "c", Target: "localhost:9@10.0.0.1"}, "target"},
		{"tcp trailing space", UpstreamSpec{Name: "c", Target: "127.0.0.1:9 "}, "target"},
		{"tcp port 0", UpstreamSpec{Name: "c", Target: "127.0.0.1:0"}, "target"},
		{"tcp port range", UpstreamSpec{Name: "c", Target: "127.0.0.1:65536"}, "target"},
		{"tcp signed port", UpstreamSpec{Name: "c", Target: "127.0.0.1:+80"}, "target"},
		{"tcp no host", UpstreamSpec{Name: "c", Target: ":80"}, "target"},
		{"tcp bad name", UpstreamSpec{Name: "c", Target: "db_!x:80"}, "target"},
		{"tcp bad quad", UpstreamSpec{Name: "c", Target: "999.1.1.1:80"}, "target"},
		{"http https", UpstreamSpec{Name: "c", Protocol: "http", Target: "https://127.0.0.1:9"}, "target"},
		{"http userinfo", UpstreamSpec{Name: "c", Protocol: "http", Target: "http://u:p@127.0.0.1:9"}, "target"},
		{"http path", UpstreamSpec{Name: "c", Protocol: "http", Target: "http://127.0.0.1:9/api"}, "target"},
		{"http no host", UpstreamSpec{Name: "c", Protocol: "http", Target: "http://:9"}, "target"},
		{"http space", UpstreamSpec{Name: "c", Protocol: "http", Target: "http://127.0.0.1:9 "}, "target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			err := spec.Validate()
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var se *SpecError
			if !errors.As(err, &se) || se.Field != tt.wantField {
				t.Fatalf("Validate = %v, want a SpecError on %s", err, tt.wantField)
			}
		})
	}
}

func TestListensOnAllInterfaces(t *testing.T) {
	for addr, want := range map[string]bool{
		":7000": true, "0.0.0.0:1": true, "[::]:1": true, "[::ffff:0.0.0.0]:1": true,
		"127.0.0.1:0": false, "[::1]:0": false, "localhost:0": false, "10.1.2.3:80": false, "garbage": false,
	} {
		if got := ListensOnAllInterfaces(addr); got != want {
			t.Errorf("ListensOnAllInterfaces(%q) = %v, want %v", addr, got, want)
		}
	}
}

// FuzzUpstreamSpecValidate checks that no address crashes validation,
// and that an accepted target is one net.Dial takes as host:port with no
// space in it.
func FuzzUpstreamSpecValidate(f *testing.F) {
	for _, s := range []string{"127.0.0.1:1", "http://h:1", "localhost:9@10.0.0.1", "[::1]:0", "999.1.1.1:0", " :1", "http://[::1]:80/"} {
		f.Add(s, s, true)
	}
	f.Fuzz(func(t *testing.T, listen, target string, http bool) {
		spec := UpstreamSpec{Name: "x", Listen: listen, Target: target}
		if http {
			spec.Protocol = ProtocolHTTP
		}
		if spec.Validate() != nil {
			return
		}
		addr, err := spec.TargetAddr()
		if err != nil || strings.ContainsAny(addr, " \t\r\n@/") {
			t.Fatalf("accepted target %q gives %q, %v", target, addr, err)
		}
	})
}
