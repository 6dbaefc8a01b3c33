package agentsim

import (
	"context"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func filesScenario(t *testing.T, mode string) *scenario.Scenario {
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
	sc, err := scenario.Parse("files.yaml", []byte(src))
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
			rep, err := Run(context.Background(), []*scenario.Scenario{filesScenario(t, tt.mode)}, RunOptions{Seed: 1})
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
				// (report.Redact); the real target stays as it is.
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
