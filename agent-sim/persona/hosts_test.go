package agentsim

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHostObserve(t *testing.T) {
	protoErr := Outcome{Channel: ChannelProtocolError, Code: -32603, Text: "Internal error"}
	noResp := Outcome{Channel: ChannelNoResponse, Text: "after 5s"}
	tests := []struct {
		host string
		o    Outcome
		want Observation
	}{
		{"swallow", protoErr, Observation{}},
		{"generic", protoErr, Observation{Seen: true, IsError: true, Text: "tool call failed"}},
		{"raw", protoErr, Observation{Seen: true, IsError: true, Text: "MCP error -32603: Internal error"}},
		{"raw", Outcome{Channel: ChannelProtocolError, Code: 0, Text: "boom"}, Observation{Seen: true, IsError: true, Text: "MCP error 0: boom"}},
		{"swallow", noResp, Observation{}},
		{"generic", noResp, Observation{Seen: true, IsError: true, Text: "tool call failed"}},
		{"raw", noResp, Observation{Seen: true, IsError: true, Text: "request timed out: after 5s"}},
		{"raw", Outcome{Channel: ChannelServerExit}, Observation{Seen: true, IsError: true, Text: "server exited"}},
		{"raw", Outcome{Channel: ChannelTransportError, Code: 502}, Observation{Seen: true, IsError: true, Text: "transport error: HTTP 502"}},
	}
	for _, tt := range tests {
		t.Run(tt.host+"/"+string(tt.o.Channel), func(t *testing.T) {
			h, err := HostByName(tt.host, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, h.Observe(tt.o)); diff != "" {
				t.Errorf("Observe (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHostResultsAlwaysReach asserts the invariant every profile keeps:
// successes and tool errors are ordinary results and reach the model.
func TestHostResultsAlwaysReach(t *testing.T) {
	for _, h := range BuiltinHosts() {
		t.Run(h.Name, func(t *testing.T) {
			ok := h.Observe(Outcome{Channel: ChannelSuccess, Text: "done"})
			if !ok.Seen || ok.IsError || ok.Text != "done" {
				t.Errorf("success: %+v", ok)
			}
			te := h.Observe(Outcome{Channel: ChannelToolError, Text: "Do not retry."})
			if !te.Seen || !te.IsError || te.Text != "Do not retry." {
				t.Errorf("tool error: %+v", te)
			}
		})
	}
}

func TestHostByName(t *testing.T) {
	custom := []HostProfile{
		{Name: "chat-host", ProtocolError: "generic", GenericText: "Error executing tool"},
		{Name: "swallow", ProtocolError: "raw"}, // a scenario may redefine a built-in
		{Name: "broken", ProtocolError: "shout"},
	}
	t.Run("defaults", func(t *testing.T) {
		h, err := HostByName("chat-host", custom)
		if err != nil {
			t.Fatal(err)
		}
		want := HostProfile{Name: "chat-host", ProtocolError: "generic", GenericText: "Error executing tool", NoResponse: "generic", AfterCrash: CrashReconnectOnce}
		if diff := cmp.Diff(want, h); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if got := h.Observe(Outcome{Channel: ChannelProtocolError}).Text; got != "Error executing tool" {
			t.Errorf("generic text = %q", got)
		}
	})
	t.Run("override", func(t *testing.T) {
		h, err := HostByName("swallow", custom)
		if err != nil || h.ProtocolError != "raw" {
			t.Errorf("got %+v, %v; want the scenario's swallow", h, err)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		if _, err := HostByName("broken", custom); err == nil || !strings.Contains(err.Error(), "shout") {
			t.Errorf("err = %v, want one naming the bad value", err)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		_, err := HostByName("nope", custom)
		if err == nil || !strings.Contains(err.Error(), "generic, raw, swallow") {
			t.Errorf("err = %v, want one listing the known profiles", err)
		}
	})
	t.Run("builtins fresh", func(t *testing.T) {
		a := BuiltinHosts()
		a[0].Name = "changed"
		if BuiltinHosts()[0].Name != "swallow" {
			t.Error("BuiltinHosts shares state between calls")
		}
	})
}
