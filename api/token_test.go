package api_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestCheckToken: a token no client could present is refused up front,
// rather than locking every client out of a running server.
func TestCheckToken(t *testing.T) {
	for _, tc := range []struct {
		token string
		ok    bool
	}{
		{"", true},
		{testToken, true},
		{"with inner space ok", true},
		{strings.Repeat(" ", 16), false},
		{"\t\n", false},
		{" " + testToken, false},
		{testToken + "\n", false},
		{"abc\x00defghijklmnop", false},
	} {
		err := api.CheckToken(tc.token)
		if (err == nil) != tc.ok {
			t.Errorf("CheckToken(%q) = %v, want ok=%v", tc.token, err, tc.ok)
		}
		if err != nil && !errors.Is(err, api.ErrBadToken) {
			t.Errorf("CheckToken(%q): %v does not wrap ErrBadToken", tc.token, err)
		}
		// CheckBind applies it on every address.
		if err := api.CheckBind("0.0.0.0:7777", tc.token); tc.token != "" && (err == nil) != tc.ok {
			t.Errorf("CheckBind with %q = %v, want ok=%v", tc.token, err, tc.ok)
		}
	}
}

// TestServeRefusesBlankToken: a server given 16 spaces as its token
// refuses to start, even on loopback.
func TestServeRefusesBlankToken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	reg := inject.New(inject.Options{})
	defer reg.Close()
	srv := api.New(reg, api.Options{Token: strings.Repeat(" ", 16)})
	if err := srv.Serve(context.Background(), ln); !errors.Is(err, api.ErrBadToken) {
		t.Fatalf("Serve with a blank token: %v, want ErrBadToken", err)
	}
}
