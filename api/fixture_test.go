package api_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/demo"
	"github.com/mcpchaos/mcpchaos/inject"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture is a registry and an API server over it, reached through
// either transport.
type fixture struct {
	reg    *inject.Registry
	srv    *api.Server
	base   string
	hc     *http.Client
	client *api.Client
}

// transports are the two ways every route is tested: in process through
// httptest.ResponseRecorder, and over TCP to Server.Serve on a loopback
// port.
var transports = []string{"httptest", "loopback"}

// setup builds a fixture. The registry's clock is clock (nil: the
// system's). RunOptions get the demo carrier and this binary as
// {{ mcpchaos }}, and runs are enabled, unless opts sets RunOptions.
func setup(t *testing.T, transport string, clock *fakeClock, opts api.Options) *fixture {
	t.Helper()
	ro := inject.Options{}
	if clock != nil {
		ro.Clock = clock
		if opts.Clock == nil {
			opts.Clock = clock
		}
	}
	reg := inject.New(ro)
	if opts.RunOptions.Builtins == nil {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		opts.RunOptions = agentsim.RunOptions{Self: self, Concurrency: 2,
			Builtins: map[string]agentsim.Builtin{"carrier": demo.StartCarrier}}
		// A test that gives no RunOptions runs scenarios; one that
		// gives its own decides EnableRuns too.
		opts.EnableRuns = true
	}
	srv := api.New(reg, opts)
	f := &fixture{reg: reg, srv: srv}
	switch transport {
	case "httptest":
		f.base = "http://127.0.0.1:7777"
		f.hc = &http.Client{Transport: recorderTransport{srv.Handler()}}
		t.Cleanup(func() { _ = srv.Close() })
	case "loopback":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ctx, ln) }()
		f.base = "http://" + ln.Addr().String()
		tr := &http.Transport{}
		f.hc = &http.Client{Transport: tr}
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			tr.CloseIdleConnections()
		})
	default:
		t.Fatalf("unknown transport %q", transport)
	}
	t.Cleanup(func() {
		reg.Halt()
		_ = reg.Close()
	})
	c, err := api.NewClient(f.base, api.ClientOptions{Token: opts.Token, HTTPClient: f.hc, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f.client = c
	return f
}

// recorderTransport serves requests in process with a ResponseRecorder.
type recorderTransport struct{ h http.Handler }

func (rt recorderTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.RemoteAddr = "127.0.0.1:50000"
	r.RequestURI = req.URL.RequestURI()
	if r.Host == "" {
		r.Host = req.URL.Host
	}
	if r.Body == nil {
		r.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	rt.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// call sends a request and returns the status and body.
func (f *fixture) call(t *testing.T, method, path, contentType, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading: %v", method, path, err)
	}
	return resp.StatusCode, string(data)
}

// backend is an HTTP upstream that answers "ok".
func backend(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s
}

// echoServer is a TCP upstream that echoes; it returns its address.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}
