package upstream

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Body is what the HTTP server answers to every request but the two
// below: 13 bytes.
const Body = "hello, world\n"

// Routes of the large-body measurement:
//   - POST SinkPath swallows the request body and answers 200 with the
//     number of bytes it read, in decimal, so the client can check that
//     the whole body arrived;
//   - GET BytesPath+N answers 200 with N bytes (Content-Length: N).
const (
	SinkPath  = "/sink"
	BytesPath = "/bytes/"
	// MaxBytes bounds N: the route is for the benchmark's own client,
	// but a typo must not make the upstream write for hours.
	MaxBytes = 4 << 30
)

// ServeHTTP serves Body, SinkPath and BytesPath on ln until ctx ends.
func ServeHTTP(ctx context.Context, ln net.Listener) error {
	body := []byte(Body)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The small-request loads hit "/" at tens of thousands of
		// requests a second: it is checked first and does nothing else.
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", "13")
			_, _ = w.Write(body)
			return
		}
		n, isBytes := strings.CutPrefix(r.URL.Path, BytesPath)
		switch {
		case r.URL.Path == SinkPath && r.Method == http.MethodPost:
			sink(w, r)
		case isBytes && r.Method == http.MethodGet:
			serveBytes(w, n)
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", "13")
			_, _ = w.Write(body)
		}
	})
	srv := &http.Server{
		Handler: h,
		// Generous: an idle keep-alive connection held by the memory
		// test must not be closed under it, but nothing waits forever.
		ReadHeaderTimeout: time.Minute,
		IdleTimeout:       10 * time.Minute,
	}
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stop()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// sink reads the whole request body and answers how many bytes it read.
func sink(w http.ResponseWriter, r *http.Request) {
	buf := make([]byte, BufSize)
	var n int64
	for {
		k, err := r.Body.Read(buf)
		n += int64(k)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// The client or a proxy cut the body: there is nobody to
			// answer, and the client sees the cut itself.
			return
		}
	}
	out := strconv.AppendInt(nil, n, 10)
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
}

// serveBytes answers n (decimal, at most MaxBytes) bytes of zeros.
func serveBytes(w http.ResponseWriter, arg string) {
	n, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || n < 0 || n > MaxBytes {
		http.Error(w, "byte count must be a decimal within 0.."+strconv.FormatInt(MaxBytes, 10), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
	buf := make([]byte, min(n, BufSize))
	for left := n; left > 0; {
		k, err := w.Write(buf[:min(left, int64(len(buf)))])
		if err != nil {
			return
		}
		left -= int64(k)
	}
}
