package agentsim

import (
	"context"
	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"testing"
	"time"
)

// TestArgGenPassesServerValidation: on a go-sdk server (which validates
// every call against the tool's schema) and an mcp-go server (whose
// handlers check every rule by hand), the generated arguments pass, for
// several seeds; the invalid call of each tool is refused.
func TestArgGenPassesServerValidation(t *testing.T) {
	bins := buildCorpus(t)
	for _, server := range []string{"schemas-gosdk", "schemas-mcpgo"} {
		t.Run(server, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			sess, err := driver.Connect(ctx, driver.ServerSpec{Command: []string{bins[server]}}, driver.Options{CallTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			tools := sess.Tools()
			if len(tools) != 2 {
				t.Fatalf("%d tools", len(tools))
			}
			for _, tool := range tools {
				for seed := range uint64(5) {
					g := scenario.NewArgGen(seed)
					args := g.Valid(tool.Name, tool.InputSchema)
					if o := sess.Call(ctx, tool.Name, args); o.Channel != transcript.ChannelSuccess {
						t.Errorf("seed %d: %s(%v): %s %d %q", seed, tool.Name, args, o.Channel, o.Code, o.Text)
					}
					bad, broke, ok := g.Invalid(tool.Name, tool.InputSchema)
					if !ok {
						t.Fatalf("%s: no invalid call", tool.Name)
					}
					if o := sess.Call(ctx, tool.Name, bad); o.Channel == transcript.ChannelSuccess {
						t.Errorf("seed %d: %s(%v) (%s) was accepted: %q", seed, tool.Name, bad, broke, o.Text)
					}
				}
			}
		})
	}
}
