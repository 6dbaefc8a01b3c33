package agentsim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	// The corpus (testdata/servers) builds two servers on mcp-go, and go mod
	// tidy ignores testdata: this import keeps the module and its go.sum
	// entries in go.mod.
	_ "github.com/mark3labs/mcp-go/server"
	"github.com/mcpchaos/mcpchaos/internal/testenv"
)

// corpusDir is where the server corpus's sources live, relative to this
// package.
const corpusDir = "testdata/servers"

// corpusBuild caches the one build of the corpus per test binary: building
// ten servers takes seconds, and every simulator test wants them.
var corpusBuild struct {
	once  sync.Once
	bins  map[string]string
	err   error
	where string
}

// buildCorpus builds every server under testdata/servers (each directory
// with a main.go) once per test binary and returns name → binary path.
//
// The binaries outlive the test that first asks for them, so they cannot
// go in its t.TempDir(). Under `go test` they go next to the test binary,
// in the go command's work directory, which it removes when the run ends;
// a test binary run by hand writes them to a fresh temporary directory
// (and logs where).
func buildCorpus(t *testing.T) map[string]string {
	t.Helper()
	testenv.SkipShort(t, "builds the server corpus")
	b := &corpusBuild
	b.once.Do(func() { b.bins, b.where, b.err = buildCorpusOnce() })
	if b.err != nil {
		t.Fatalf("building the server corpus: %v", b.err)
	}
	if b.where != "" {
		t.Logf("server corpus built in %s", b.where)
	}
	return b.bins
}

func buildCorpusOnce() (bins map[string]string, where string, err error) {
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		return nil, "", err
	}
	var pkgs []string
	bins = map[string]string{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(corpusDir, e.Name(), "main.go")); err != nil {
			continue // internal/, shared code
		}
		pkgs = append(pkgs, "./"+corpusDir+"/"+e.Name())
		bins[e.Name()] = e.Name()
	}
	if len(pkgs) == 0 {
		return nil, "", fmt.Errorf("no servers under %s", corpusDir)
	}
	out, where, err := corpusOutDir()
	if err != nil {
		return nil, "", err
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// One go build for all: the packages compile in parallel. -o to a
	// directory names each binary after its package directory.
	args := append([]string{"build", "-trimpath", "-ldflags=-s -w", "-o", out + string(filepath.Separator)}, pkgs...)
	cmd := exec.CommandContext(ctx, gobin, args...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("go build: %v\n%s", err, msg)
	}
	for name := range bins {
		bins[name] = filepath.Join(out, name)
	}
	return bins, where, nil
}

// corpusOutDir picks the directory for the binaries; where is non-empty
// when it will not be cleaned up by the go command.
func corpusOutDir() (dir, where string, err error) {
	if exe, err := os.Executable(); err == nil {
		// go test runs the binary from $WORK/bNNN/; $WORK (go-build…) is
		// removed after the run unless -work is given.
		d := filepath.Dir(exe)
		if regexp.MustCompile(`^b\d+$`).MatchString(filepath.Base(d)) &&
			strings.HasPrefix(filepath.Base(filepath.Dir(d)), "go-build") {
			dir := filepath.Join(d, "corpus")
			return dir, "", os.MkdirAll(dir, 0o755)
		}
	}
	dir, err = os.MkdirTemp("", "mcpchaos-corpus-")
	return dir, dir, err
}

// corpusUpstream is an order service as the corpus servers expect it
// (testdata/servers/README.md): POST /orders commits (deduplicated by
// Idempotency-Key), GET /orders?sku= lists.
type corpusUpstream struct {
	mu     sync.Mutex
	orders []map[string]any
	byKey  map[string]map[string]any
}

func (u *corpusUpstream) committed() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.orders)
}

func (u *corpusUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	defer u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/orders":
		var in struct {
			SKU string `json:"sku"`
			Qty int    `json:"qty"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		key := r.Header.Get("Idempotency-Key")
		if o, ok := u.byKey[key]; ok && key != "" {
			json.NewEncoder(w).Encode(o)
			return
		}
		o := map[string]any{"id": fmt.Sprintf("ORD-%d", len(u.orders)+1), "sku": in.SKU, "qty": in.Qty}
		u.orders = append(u.orders, o)
		if key != "" {
			u.byKey[key] = o
		}
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(o)
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/orders/"):
		u.put(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/orders":
		l := []map[string]any{}
		for _, o := range u.orders {
			if o["sku"] == r.URL.Query().Get("sku") {
				l = append(l, o)
			}
		}
		json.NewEncoder(w).Encode(l)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// put applies PUT /orders/{id}: it creates the order (201) or replaces
// it (200), so repeating it leaves one order.
func (u *corpusUpstream) put(w http.ResponseWriter, r *http.Request) {
	var in struct {
		SKU string `json:"sku"`
		Qty int    `json:"qty"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	o := map[string]any{"id": strings.TrimPrefix(r.URL.Path, "/orders/"), "sku": in.SKU, "qty": in.Qty}
	for i, old := range u.orders {
		if old["id"] == o["id"] {
			u.orders[i] = o
			json.NewEncoder(w).Encode(o)
			return
		}
	}
	u.orders = append(u.orders, o)
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(o)
}

// corpusUpstreamURL serves an order service on 127.0.0.1:0.
func corpusUpstreamURL(t *testing.T) (string, *corpusUpstream) {
	t.Helper()
	u := &corpusUpstream{byKey: map[string]map[string]any{}}
	srv := httptest.NewServer(u)
	t.Cleanup(srv.Close)
	return srv.URL, u
}

// corpusHangURL serves an upstream that never answers until the test ends.
func corpusHangURL(t *testing.T) string {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first
	return srv.URL
}

// corpusRefusedURL is a 127.0.0.1 address that refuses connections.
func corpusRefusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// corpusServer is a running corpus server and a go-sdk client session.
type corpusServer struct {
	cs  *mcp.ClientSession
	cmd *exec.Cmd
}

// startCorpusServer starts bin over stdio with UPSTREAM_URL set.
func startCorpusServer(t *testing.T, bin, upstream string) *corpusServer {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "UPSTREAM_URL="+upstream)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl := mcp.NewClient(&mcp.Implementation{Name: "corpus-test", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("%s: connect: %v", filepath.Base(bin), err)
	}
	t.Cleanup(func() { cs.Close() })
	return &corpusServer{cs: cs, cmd: cmd}
}

// corpusReply is a tools/call outcome, reduced to what the tests assert.
type corpusReply struct {
	channel string // success, tool_error, protocol_error, no_response, closed
	code    int64
	text    string
}

func (s *corpusServer) call(t *testing.T, timeout time.Duration, tool string, args map[string]any) corpusReply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc):
		return corpusReply{channel: "protocol_error", code: rpc.Code, text: rpc.Message}
	case errors.Is(err, context.DeadlineExceeded):
		return corpusReply{channel: "no_response", text: err.Error()}
	case err != nil:
		return corpusReply{channel: "closed", text: err.Error()}
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	r := corpusReply{channel: "success", text: strings.Join(parts, "\n")}
	if res.IsError {
		r.channel = "tool_error"
	}
	return r
}

func TestCorpusStartsAndListsTools(t *testing.T) {
	bins := buildCorpus(t)
	for _, want := range []string{"careful-gosdk", "careful-mcpgo", "rpcerror-gosdk", "typederror-gosdk", "rpcerror-mcpgo", "leaky",
		"noguidance", "duplicating", "silentloss", "panicky", "hanging", "nodeadline", "slow", "crashonce"} {
		if bins[want] == "" {
			t.Errorf("corpus lacks %s", want)
		}
	}
	url, _ := corpusUpstreamURL(t)
	for name, bin := range bins {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startCorpusServer(t, bin, url)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := s.cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
				if tl.Name == "list_orders" && (tl.Annotations == nil || !tl.Annotations.ReadOnlyHint) {
					t.Errorf("list_orders is not marked read-only: %+v", tl.Annotations)
				}
				if tl.Name == "create_order" && tl.Annotations != nil && tl.Annotations.ReadOnlyHint {
					t.Error("create_order is marked read-only")
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"create_order", "list_orders"}) {
				t.Errorf("tools = %v", names)
			}
		})
	}
}

// TestCorpusBehaviour pins what each corpus server returns for a healthy,
// a refusing and a hanging upstream, so the simulator's tests can rely on
// the corpus doing what testdata/servers/README.md says.
func TestCorpusBehaviour(t *testing.T) {
	bins := buildCorpus(t)
	args := map[string]any{"sku": "SKU-1", "qty": 2}
	type want struct {
		channel string
		code    int64
		has     []string // substrings of the text
		exact   string   // the whole text, when set
		lacks   []string // what must not appear (leaks)
	}
	ok := func(has ...string) want { return want{channel: "success", has: has} }
	noLeak := []string{"127.0.0.1", "http://", "dial tcp", "SELECT", "SQLSTATE"}
	carefulRefused := want{channel: "tool_error", has: []string{"cannot be reached", "Nothing was ordered", "Retry once"}, lacks: noLeak}
	carefulHangs := want{channel: "tool_error", lacks: noLeak,
		has: []string{"may or may not have been placed", "Do not retry create_order yet", "call list_orders with sku SKU-1"}}
	cases := []struct {
		server             string
		ok, refused, hangs want
	}{
		{"careful-gosdk", ok("placed"), carefulRefused, carefulHangs},
		{"careful-mcpgo", ok("placed"), carefulRefused, carefulHangs},
		{"rpcerror-gosdk", ok("ORD-1"),
			want{channel: "protocol_error", code: 0, has: []string{"order service error"}},
			want{channel: "protocol_error", code: 0, has: []string{"order service error"}}},
		// The same Go error, registered with the typed mcp.AddTool: an
		// isError result, not a protocol error.
		{"typederror-gosdk", ok("ORD-1"),
			want{channel: "tool_error", has: []string{"order service error"}},
			want{channel: "tool_error", has: []string{"order service error"}}},
		{"rpcerror-mcpgo", ok("ORD-1"),
			want{channel: "protocol_error", code: jsonrpc.CodeInternalError, has: []string{"order service error"}},
			want{channel: "protocol_error", code: jsonrpc.CodeInternalError, has: []string{"order service error"}}},
		{"leaky", ok("placed"),
			want{channel: "tool_error", has: []string{"127.0.0.1:", "SELECT * FROM orders WHERE sku = 'SKU-1'", "SQLSTATE 40001"}},
			want{channel: "tool_error", has: []string{"127.0.0.1:", "SELECT * FROM orders", "SQLSTATE 40001", "list_orders"}}},
		{"noguidance", ok("ORD-1"), want{channel: "tool_error", exact: "order failed"}, want{channel: "tool_error", exact: "order failed"}},
		{"duplicating", ok("ORD-1"), want{channel: "tool_error", exact: "order failed"}, want{channel: "tool_error", exact: "order failed"}},
		{"silentloss", ok("order placed: ORD-1"), want{channel: "success", exact: "order placed"}, want{channel: "success", exact: "order placed"}},
		{"panicky", ok("ORD-1"), want{channel: "closed"}, want{channel: "closed"}},
	}
	check := func(t *testing.T, got corpusReply, w want) {
		t.Helper()
		if got.channel != w.channel || (w.channel == "protocol_error" && got.code != w.code) {
			t.Fatalf("got %s (code %d) %q, want %s (code %d)", got.channel, got.code, got.text, w.channel, w.code)
		}
		if w.exact != "" && got.text != w.exact {
			t.Errorf("text %q, want %q", got.text, w.exact)
		}
		for _, h := range w.has {
			if !strings.Contains(got.text, h) {
				t.Errorf("text lacks %q: %s", h, got.text)
			}
		}
		for _, l := range w.lacks {
			if strings.Contains(got.text, l) {
				t.Errorf("text leaks %q: %s", l, got.text)
			}
		}
	}
	for _, tc := range cases {
		t.Run(tc.server+"/ok", func(t *testing.T) {
			t.Parallel()
			url, up := corpusUpstreamURL(t)
			check(t, startCorpusServer(t, bins[tc.server], url).call(t, 10*time.Second, "create_order", args), tc.ok)
			if up.committed() != 1 {
				t.Errorf("committed %d orders", up.committed())
			}
		})
		t.Run(tc.server+"/refused", func(t *testing.T) {
			t.Parallel()
			s := startCorpusServer(t, bins[tc.server], corpusRefusedURL(t))
			check(t, s.call(t, 10*time.Second, "create_order", args), tc.refused)
		})
		t.Run(tc.server+"/hangs", func(t *testing.T) {
			t.Parallel()
			s := startCorpusServer(t, bins[tc.server], corpusHangURL(t))
			check(t, s.call(t, 10*time.Second, "create_order", args), tc.hangs)
		})
	}
	t.Run("panicky/exit", func(t *testing.T) {
		t.Parallel()
		s := startCorpusServer(t, bins["panicky"], corpusRefusedURL(t))
		s.call(t, 10*time.Second, "create_order", args)
		s.cs.Close() // reaps the process
		if st := s.cmd.ProcessState; st == nil || st.ExitCode() != 2 {
			t.Errorf("process state %v, want exit status 2", st)
		}
	})
	t.Run("hanging", func(t *testing.T) {
		t.Parallel()
		url, _ := corpusUpstreamURL(t)
		s := startCorpusServer(t, bins["hanging"], url)
		check(t, s.call(t, time.Second, "create_order", args), want{channel: "no_response"})
	})
}

// TestCorpusRetries pins which servers commit a repeated create_order once
// (idempotency key) and which commit it twice, and what they claim.
func TestCorpusRetries(t *testing.T) {
	bins := buildCorpus(t)
	cases := []struct {
		server     string
		committed  int
		idempotent bool // the idempotentHint create_order declares
	}{
		{"careful-gosdk", 1, true},
		{"careful-mcpgo", 1, true},
		{"leaky", 1, true},
		{"duplicating", 2, true}, // the lie MC009 catches
		{"noguidance", 2, false},
		{"silentloss", 2, false},
		{"rpcerror-gosdk", 2, false},
		{"typederror-gosdk", 2, false},
		{"rpcerror-mcpgo", 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.server, func(t *testing.T) {
			t.Parallel()
			url, up := corpusUpstreamURL(t)
			s := startCorpusServer(t, bins[tc.server], url)
			args := map[string]any{"sku": "SKU-1", "qty": 2}
			s.call(t, 10*time.Second, "create_order", args)
			s.call(t, 10*time.Second, "create_order", args)
			if up.committed() != tc.committed {
				t.Errorf("committed %d, want %d", up.committed(), tc.committed)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := s.cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tl := range res.Tools {
				if tl.Name == "create_order" {
					got := tl.Annotations != nil && tl.Annotations.IdempotentHint
					if got != tc.idempotent {
						t.Errorf("idempotentHint = %v, want %v", got, tc.idempotent)
					}
				}
			}
		})
	}
}

// TestCorpusCutReply pins what servers say when the upstream committed the
// order but the reply was cut short (headers sent, body truncated).
func TestCorpusCutReply(t *testing.T) {
	bins := buildCorpus(t)
	cases := []struct{ server, channel, has string }{
		{"careful-gosdk", "tool_error", "reply was cut off"},
		{"careful-mcpgo", "tool_error", "reply was cut off"},
		{"noguidance", "tool_error", "order failed"},
		{"silentloss", "success", "order placed"},
	}
	for _, tc := range cases {
		t.Run(tc.server, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Length", "100")
				w.WriteHeader(http.StatusCreated)
				w.Write([]byte(`{"id":"ORD-`))
			}))
			t.Cleanup(srv.Close)
			got := startCorpusServer(t, bins[tc.server], srv.URL).call(t, 10*time.Second, "create_order",
				map[string]any{"sku": "SKU-1", "qty": 1})
			if got.channel != tc.channel || !strings.Contains(got.text, tc.has) {
				t.Errorf("got %s %q, want %s containing %q", got.channel, got.text, tc.channel, tc.has)
			}
		})
	}
}
