package agentsim

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/config"
)

// serveFileReader is the helper server of mode "files": its one tool
// replies with the content of the file named by --config, as a server
// reading its kubeconfig would.
func serveFileReader() {
	path := ""
	for i, a := range os.Args {
		if a == "--config" && i+1 < len(os.Args) {
			path = os.Args[i+1]
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		os.Exit(4) // the file is not there: the server cannot start
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "file-reader", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "show_config", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := "config at " + os.Getenv("KUBECONFIG") + ":\n" + string(data)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

func filesScenario(t *testing.T, mode string) *Scenario {
	t.Helper()
	src := `name: files
server:
  command: ["` + os.Args[0] + `", "--config", '{{ file "kubeconfig" }}']
  env: {MCPCHAOS_HELPER_SERVER: ` + mode + `, KUBECONFIG: '{{ file "kubeconfig" }}'}
upstreams:
  - {name: kube, protocol: http, target: "http://127.0.0.1:1"}
files:
  kubeconfig: |
    clusters:
      - cluster: {server: '{{ upstream "kube" }}', real: '{{ target_addr "kube" }}'}
        name: proxied
agent: {personas: [diligent], hosts: [raw], budget: 1}
steps:
  - tool: show_config
`
	sc, err := ParseScenario("files.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestFilesRenderedAndRemoved: the server reads the rendered kubeconfig
// (the proxy's address in it), and the run's directory is gone
// afterwards, whether the server ran or failed to start.
func TestFilesRenderedAndRemoved(t *testing.T) {
	for _, tt := range []struct {
		mode    string
		started bool
	}{{"files", true}, {"exit-at-start", false}} {
		t.Run(tt.mode, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			rep, err := Run(context.Background(), []*Scenario{filesScenario(t, tt.mode)}, RunOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Runs[0]
			if tt.started {
				if r.Error != "" || len(r.Calls) != 1 {
					t.Fatalf("error %q, %d calls", r.Error, len(r.Calls))
				}
				text := r.Calls[0].Text
				// The report names the proxy's address by its template
				// (report_redact.go); the real target stays as it is.
				if !strings.Contains(text, `server: '{{ upstream "kube" }}'`) || !strings.Contains(text, "real: '127.0.0.1:1'") ||
					!strings.Contains(text, `config at {{ file "kubeconfig" }}:`) {
					t.Errorf("the server read %q, not the rendered kubeconfig", text)
				}
			} else if r.Error == "" {
				t.Fatal("the server started without its file")
			}
			left, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range left {
				t.Errorf("left behind in the temporary directory: %s", filepath.Join(tmp, e.Name()))
			}
		})
	}
}

func TestFilesErrors(t *testing.T) {
	head := "server:\n  command: [srv, '{{ file \"cfg\" }}']\nsteps: [{tool: a}]\n"
	tests := []struct{ name, body, want string }{
		{"undeclared in server", "files: {other: x}\n", `files.yaml:2: server.command[1]: template: error calling file: "cfg" is not declared under files (declared: other)`},
		{"no files", "", `"cfg" is not declared under files (none is)`},
		{"bad name", "files: {../cfg: x}\n", `files.yaml:4: files.../cfg: "../cfg" is not a file name`},
		{"dot name", "files: {.cfg: x}\n", `is not a file name`},
		{"bad template", "files:\n  cfg: '{{ upstream \"db\" }}'\n", `files.yaml:5: files.cfg: template: error calling upstream: "db" is not declared under upstreams`},
		{"not text", "files:\n  cfg: {a: 1}\n", `files.yaml:5: files.cfg`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenario("files.yaml", []byte(head+tt.body))
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want *config.Error containing %q", err, tt.want)
			}
		})
	}
}
