package agentsim

import (
	"context"
	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"testing"
)

// TestDriverCorpusBothSDKs drives the careful corpus servers built on each
// SDK (go-sdk and mcp-go) over stdio, negotiating the protocol.
func TestDriverCorpusBothSDKs(t *testing.T) {
	bins := buildCorpus(t)
	url, _ := corpusUpstreamURL(t)
	for _, name := range []string{"careful-gosdk", "careful-mcpgo"} {
		t.Run(name, func(t *testing.T) {
			spec := driver.ServerSpec{Command: []string{bins[name]}, Env: map[string]string{"UPSTREAM_URL": url}}
			s, err := driver.Connect(context.Background(), spec, driver.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			t.Logf("negotiated %s", s.ProtocolVersion())
			if s.ProtocolVersion() == "" || len(s.Tools()) < 2 {
				t.Errorf("version %q, tools %+v", s.ProtocolVersion(), s.Tools())
			}
			if o := s.Call(context.Background(), "list_orders", map[string]any{"sku": "A-1"}); o.Channel != transcript.ChannelSuccess {
				t.Errorf("list_orders: %+v", o)
			}
			if exit := s.Close(); !exit.Exited || exit.Code != 0 {
				t.Errorf("exit %+v", exit)
			}
		})
	}
}
