package load

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/upstream"
)

// listen returns a loopback listener on a free port.
func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// serve runs an HTTP server with h on a free port until the test ends.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln := listen(t)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return ln.Addr().String()
}

func TestBodyThroughUpstream(t *testing.T) {
	ln := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- upstream.ServeHTTP(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("upstream: %v", err)
		}
	}()
	const n = 3<<20 + 7 // not a multiple of the buffer
	for _, dir := range []string{Upload, Download} {
		res, err := Body(context.Background(), ln.Addr().String(), dir, n, time.Minute)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if res.Bytes != n || res.Elapsed <= 0 || res.MiBps() <= 0 {
			t.Errorf("%s: %+v", dir, res)
		}
	}
}

// TestBodyFailures: a proxy that refuses or cuts a large body is a
// result to report, with the status when there is one, never a hang.
func TestBodyFailures(t *testing.T) {
	refuse := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Answer before reading any of the body, as a proxy that will
		// not hold it does.
		http.Error(w, "too large", http.StatusRequestEntityTooLarge)
	}))
	badGateway := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream reply too large", http.StatusBadGateway)
	}))
	short := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1048576")
		_, _ = w.Write(make([]byte, 1000)) // then the handler ends: the body is cut
	}))
	miscount := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "12")
	}))
	tests := []struct {
		name, addr, dir string
		status          int    // the StatusError expected, or 0
		msg             string // else, part of the error expected
	}{
		{"upload refused", refuse, Upload, 413, ""},
		{"download refused", badGateway, Download, 502, ""},
		{"download cut", short, Download, 0, "after 1000 of"},
		{"upload miscounted", miscount, Upload, 0, `read "12" bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := Body(ctx, tt.addr, tt.dir, 64<<20, time.Minute)
			if err == nil {
				t.Fatal("no error")
			}
			if ctx.Err() != nil {
				t.Fatalf("not reported before the test's deadline: %v", err)
			}
			var se *StatusError
			switch {
			case tt.status != 0 && (!errors.As(err, &se) || se.Code != tt.status):
				t.Errorf("error %v, want status %d", err, tt.status)
			case tt.status == 0 && (errors.As(err, &se) || !strings.Contains(err.Error(), tt.msg)):
				t.Errorf("error %v, want one containing %q", err, tt.msg)
			}
		})
	}
}
