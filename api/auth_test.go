package api_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

// syncBuffer is a log sink safe for the handlers' goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const testToken = "correct-horse-battery-staple-42"

// TestToken checks bearer authentication through both transports, that
// /healthz is open, that changes are audited under the token identity,
// and that neither the token nor a wrong one is ever logged.
func TestToken(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			var logs syncBuffer
			log := zerolog.New(&logs).Level(zerolog.DebugLevel)
			f := setup(t, tr, nil, api.Options{Token: testToken, Logger: log})
			wrong := "wrong-token-" + strings.Repeat("x", 20)
			cases := []struct {
				path   string
				header []string
				want   int
			}{
				{"/v1/faults", nil, 401},
				{"/v1/faults", []string{"Authorization", "Bearer " + wrong}, 401},
				{"/v1/faults", []string{"Authorization", "Basic " + testToken}, 401},
				{"/v1/faults", []string{"Authorization", "Bearer " + testToken[:10]}, 401},
				{"/metrics", nil, 401},
				{"/healthz", nil, 200},
				{"/v1/faults", []string{"Authorization", "Bearer " + testToken}, 200},
				// With a token, a non-loopback Host is fine: the token,
				// not the address, is what is trusted.
				{"/v1/faults", []string{"Authorization", "Bearer " + testToken, "Host", "chaos.staging:7777"}, 200},
			}
			for _, c := range cases {
				status, body := f.call(t, "GET", c.path, "", "", c.header...)
				if status != c.want {
					t.Errorf("GET %s %v: %d, want %d: %s", c.path, c.header, status, c.want, body)
				}
			}
			// The client sends the token.
			if _, err := f.client.AddUpstream(t.Context(), api.UpstreamRequest{Name: "db", Target: "127.0.0.1:9"}); err != nil {
				t.Fatal(err)
			}
			entries, err := f.client.Audit(t.Context(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].Who != "token" || entries[0].Actor != "test" ||
				entries[0].Action != "upstream.create" || entries[0].Target != "db" || entries[0].Remote == "" {
				t.Errorf("audit: %+v", entries)
			}
			out := logs.String()
			if !strings.Contains(out, `"action":"upstream.create"`) || !strings.Contains(out, "unauthorized request") {
				t.Errorf("the log lacks the audit entry or the refusal:\n%s", out)
			}
			if strings.Contains(out, testToken) || strings.Contains(out, wrong) || strings.Contains(out, testToken[:10]) {
				t.Errorf("a token was logged:\n%s", out)
			}
		})
	}
}

// TestCheckBind: loopback is always allowed; anything else needs a long
// enough token.
func TestCheckBind(t *testing.T) {
	cases := []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:7777", "", true},
		{"[::1]:7777", "", true},
		{"localhost:7777", "", true},
		{"127.0.0.2:0", "", true},
		{"0.0.0.0:7777", "", false},
		{":7777", "", false},
		{"[::]:7777", "", false},
		{"10.1.2.3:7777", "", false},
		{"chaos.staging:7777", "", false},
		{"0.0.0.0:7777", "short", false},
		{"0.0.0.0:7777", testToken, true},
		{"no-port", testToken, false},
	}
	for _, c := range cases {
		err := api.CheckBind(c.addr, c.token)
		if (err == nil) != c.ok {
			t.Errorf("CheckBind(%q, %q) = %v, want ok=%v", c.addr, c.token, err, c.ok)
		}
		if err != nil && c.ok == false && c.addr != "no-port" && !errors.Is(err, api.ErrTokenRequired) {
			t.Errorf("CheckBind(%q): %v does not wrap ErrTokenRequired", c.addr, err)
		}
	}
}

// TestServeRefusesOffLoopbackWithoutToken: Serve itself re-checks its
// listener, whatever the caller did.
func TestServeRefusesOffLoopbackWithoutToken(t *testing.T) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatalf("cannot listen on all interfaces here: %v", err)
	}
	reg := inject.New(inject.Options{})
	defer reg.Close()
	srv := api.New(reg, api.Options{})
	err = srv.Serve(context.Background(), ln)
	if !errors.Is(err, api.ErrTokenRequired) {
		t.Fatalf("Serve on %s without a token: %v, want ErrTokenRequired", ln.Addr(), err)
	}
	// The listener is closed: nothing was ever served on it.
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("the refused listener still accepts connections")
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		t.Error("something answered on the refused listener")
	}
}
