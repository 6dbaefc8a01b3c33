package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoad reads a small archive and refuses what the format does not
// allow, naming the archive and the entry.
func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name, archive, wantErr string
		want                   []Entry
	}{
		{name: "two entries", archive: "-- a.yaml --\nchannel: tool_error\nfindings: [MC005]\n-- a.txt --\nfailed\n-- b.yaml --\nchannel: success\n-- b.json --\n{\"ok\":true}\n",
			want: []Entry{{ID: "a", Archive: "x.txtar", Labels: Labels{Channel: "tool_error", Findings: []string{"MC005"}}, Text: "failed", Test: InTest("a")},
				{ID: "b", Archive: "x.txtar", Labels: Labels{Channel: "success"}, Structured: []byte("{\"ok\":true}\n"), Test: InTest("b")}}},
		{name: "no labels", archive: "-- a.txt --\nfailed\n", wantErr: "a has no labels"},
		{name: "unknown kind", archive: "-- a.yaml --\nchannel: success\n-- a.md --\nx\n", wantErr: "a.md: unknown file kind"},
		{name: "bad yaml", archive: "-- a.yaml --\nchannel: [\n", wantErr: "a.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "x.txtar"), []byte(tc.archive), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := Load(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Load: %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d entries, want %d", len(got), len(tc.want))
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if g.ID != w.ID || g.Archive != w.Archive || g.Text != w.Text || string(g.Structured) != string(w.Structured) ||
					g.Test != w.Test || g.Labels.Channel != w.Labels.Channel || strings.Join(g.Labels.Findings, ",") != strings.Join(w.Labels.Findings, ",") {
					t.Errorf("entry %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no corpus") {
		t.Errorf("an empty folder: %v, want no corpus", err)
	}
}
