package upstream

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestServeHTTPRoutes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeHTTP(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	}()
	base := "http://" + ln.Addr().String()
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     string // the answer's body; "" checks only the status
	}{
		{"hello", "GET", "/", "", 200, Body},
		{"any other path", "GET", "/x", "", 200, Body},
		{"bytes", "GET", BytesPath + "5", "", 200, "\x00\x00\x00\x00\x00"},
		{"no bytes", "GET", BytesPath + "0", "", 200, ""},
		{"bytes not a number", "GET", BytesPath + "abc", "", 400, ""},
		{"bytes over the cap", "GET", BytesPath + "4294967297", "", 400, ""},
		{"bytes negative", "GET", BytesPath + "-1", "", 400, ""},
		{"sink counts", "POST", SinkPath, strings.Repeat("x", 70000), 200, "70000"},
		{"sink empty", "POST", SinkPath, "", 200, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(ctx, tt.method, base+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, b, tt.status)
			}
			if tt.status == 200 && string(b) != tt.want {
				t.Errorf("body %q, want %q", b, tt.want)
			}
		})
	}
}
