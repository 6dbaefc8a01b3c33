package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/demo"
)

// TestScanDocument: the generated scenario parses (so every default
// fault is valid by inject's specification), crosses each upstream with
// the faults that act on its protocol, and names its cells.
func TestScanDocument(t *testing.T) {
	f := &scanFlags{}
	for _, s := range []string{"api=http://127.0.0.1:9000", "db=127.0.0.1:5432"} {
		if err := f.upstreams.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.args.Set(`get_order={"id":"O-1"}`); err != nil {
		t.Fatal(err)
	}
	p, err := f.plan([]string{"./server", "--flag"}, matrixFlags{})
	if err != nil {
		t.Fatal(err)
	}
	obj := func(props string, req ...string) map[string]any {
		return map[string]any{"type": "object", "properties": decodeJSON(t, props), "required": toAny(req)}
	}
	tools := []transcript.Tool{
		{Name: "create_order", InputSchema: obj(`{"sku":{"type":"string"}}`, "sku")},
		{Name: "get_order", InputSchema: obj(`{"id":{"type":"string"}}`, "id")},
		{Name: "delete_order", InputSchema: obj(`{}`)},
	}
	calls, err := p.calls(tools, 1)
	if err != nil {
		t.Fatal(err)
	}
	if calls[2].skip == "" || calls[1].args["id"] != "O-1" {
		t.Fatalf("delete_order not skipped, or --args ignored: %+v", calls)
	}
	doc, err := p.document(calls)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("scan.yaml", doc)
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	var names []string
	for _, c := range sc.Cells() {
		names = append(names, strings.TrimPrefix(c.Name, "scan / "))
	}
	// 5 faults on the http upstream and 4 on the tcp one (http_error
	// does not act on tcp) for the write; 2 + 2 for the read; one
	// invalid call each.
	if len(names) != 9+1+4+1 {
		t.Fatalf("%d cells: %v\n%s", len(names), names, doc)
	}
	for _, want := range []string{"http_error 503 on api / create_order", "timeout on db / create_order",
		"unreachable on db / get_order", "get_order (invalid)"} {
		if !slices.Contains(names, want) {
			t.Errorf("no cell %q in %v", want, names)
		}
	}
	if slices.Contains(names, "http_error 503 on db / create_order") || !strings.Contains(string(doc), "# delete_order: skipped") {
		t.Errorf("cells %v\n%s", names, doc)
	}
}

func TestScanPlanErrors(t *testing.T) {
	tests := []struct {
		name    string
		flags   scanFlags
		command []string
		want    string
	}{
		{"nothing", scanFlags{}, nil, "give the server's command after --, or its --url"},
		{"both", scanFlags{url: "http://127.0.0.1:1/mcp"}, []string{"x"}, "not both"},
		{"bad fault", scanFlags{faults: "timeout,lost"}, []string{"x"}, `--faults: "lost" is not a fault kind`},
		{"no file", scanFlags{files: pairFlags{{"kubeconfig", "nope.tmpl"}}}, []string{"x"}, "--file kubeconfig: open nope.tmpl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.flags.plan(tt.command, matrixFlags{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	var p pairFlags
	if err := p.Set("a=1"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"a=2", "=x", "novalue"} {
		if err := p.Set(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestYAMLValues(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{"create_order", "create_order"},
		{"yes", `"yes"`},
		{"http_error 503", `"http_error 503"`},
		{"123", `"123"`},
		{"{{ upstream \"x\" }}", `"{{ upstream \"x\" }}"`},
		{map[string]any{"b": int64(2), "a": []any{"x", true}}, `{a: [x, true], b: 2}`},
	}
	for _, tt := range tests {
		if got := yv(tt.v); got != tt.want {
			t.Errorf("yv(%#v) = %s, want %s", tt.v, got, tt.want)
		}
	}
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	args, err := decodeArgsFlag(s)
	if err != nil {
		t.Fatal(err)
	}
	return args
}

func toAny(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// TestScanURL: scan drives a server over Streamable HTTP (--url). With no
// upstream to fault, it still lists the tools and makes each one's valid
// and invalid call, one cell each. The server sits behind a gate that
// answers 401 without the token, so the --header flags are what gets the
// scan in; without them scan fails and says what the server answered.
func TestScanURL(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	carrier, stopCarrier, err := demo.StartCarrier(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- demo.ServeHTTP(ctx, demo.Careful, carrier, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serving: %v", err)
		}
		if err := stopCarrier(); err != nil {
			t.Errorf("stopping the carrier: %v", err)
		}
	}()
	target := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" || r.Header.Get("X-Tenant") != "blue" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	defer gate.Close()
	endpoint := gate.URL + "/mcp"

	var errb bytes.Buffer
	code := run(ctx, []string{"scan", "--url", endpoint}, stdio{in: strings.NewReader(""), out: io.Discard, err: &errb})
	if code == exitOK || !strings.Contains(errb.String(), "Unauthorized") || !strings.Contains(errb.String(), "--header") {
		t.Errorf("without --header: exit %d, want a failure naming the 401 and --header:\n%s", code, errb.String())
	}

	out := filepath.Join(t.TempDir(), "report.json")
	errb.Reset()
	code = run(ctx, []string{"scan", "--format", "json", "--out", out, "--url", endpoint,
		"--header", "Authorization: Bearer s3cret", "--header", "x-tenant:blue"},
		stdio{in: strings.NewReader(""), out: io.Discard, err: &errb})
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, cell := range []string{"scan / create_shipment", "scan / create_shipment (invalid)", "scan / get_shipment (invalid)"} {
		if !bytes.Contains(data, []byte(`"scenario": "`+cell+`"`)) {
			t.Errorf("the report has no cell %q", cell)
		}
	}
	if !strings.Contains(errb.String(), "the server lists 3 tools") {
		t.Errorf("stderr:\n%s", errb.String())
	}
}

// TestScanHeaderFlag: what --header accepts, and what it refuses before
// anything starts.
func TestScanHeaderFlag(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    headerFlags
		wantErr string
	}{
		{args: []string{"Authorization: Bearer a:b"}, want: headerFlags{{"Authorization", "Bearer a:b"}}},
		{args: []string{"x-tenant:blue", "X-Empty:"}, want: headerFlags{{"X-Tenant", "blue"}, {"X-Empty", ""}}},
		{args: []string{"Authorization"}, wantErr: `want "NAME: VALUE"`},
		{args: []string{": v"}, wantErr: `want "NAME: VALUE"`},
		{args: []string{"Bad Name: v"}, wantErr: "is not a header name"},
		{args: []string{"X-A: v\r\nX-B: smuggled"}, wantErr: "line break"},
		{args: []string{"x-a: 1", "X-A: 2"}, wantErr: "given twice"},
	} {
		var h headerFlags
		var err error
		for _, a := range tc.args {
			if err = h.Set(a); err != nil {
				break
			}
		}
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: error %v, want one with %q", tc.args, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.wantErr == "" && !slices.Equal(h, tc.want):
			t.Errorf("%q: %v, want %v", tc.args, h, tc.want)
		}
	}
	var errb bytes.Buffer
	code := run(t.Context(), []string{"scan", "--header", "A: b", "--", "true"}, stdio{in: strings.NewReader(""), out: io.Discard, err: &errb})
	if code == exitOK || !strings.Contains(errb.String(), "--header is sent to a server at --url") {
		t.Errorf("--header with a command: exit %d:\n%s", code, errb.String())
	}
}
