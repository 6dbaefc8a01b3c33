package persona_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

func TestHostObserve(t *testing.T) {
	protoErr := transcript.Outcome{Channel: transcript.ChannelProtocolError, Code: -32603, Text: "Internal error"}
	noResp := transcript.Outcome{Channel: transcript.ChannelNoResponse, Text: "after 5s"}
	tests := []struct {
		host string
		o    transcript.Outcome
		want transcript.Observation
	}{
		{"swallow", protoErr, transcript.Observation{}},
		{"generic", protoErr, transcript.Observation{Seen: true, IsError: true, Text: "tool call failed"}},
		{"raw", protoErr, transcript.Observation{Seen: true, IsError: true, Text: "MCP error -32603: Internal error"}},
		{"raw", transcript.Outcome{Channel: transcript.ChannelProtocolError, Code: 0, Text: "boom"}, transcript.Observation{Seen: true, IsError: true, Text: "MCP error 0: boom"}},
		{"swallow", noResp, transcript.Observation{}},
		{"generic", noResp, transcript.Observation{Seen: true, IsError: true, Text: "tool call failed"}},
		{"raw", noResp, transcript.Observation{Seen: true, IsError: true, Text: "request timed out: after 5s"}},
		{"raw", transcript.Outcome{Channel: transcript.ChannelServerExit}, transcript.Observation{Seen: true, IsError: true, Text: "server exited"}},
		{"raw", transcript.Outcome{Channel: transcript.ChannelTransportError, Code: 502}, transcript.Observation{Seen: true, IsError: true, Text: "transport error: HTTP 502"}},
	}
	for _, tt := range tests {
		t.Run(tt.host+"/"+string(tt.o.Channel), func(t *testing.T) {
			h, err := persona.HostByName(tt.host, nil)
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
	for _, h := range persona.BuiltinHosts() {
		t.Run(h.Name, func(t *testing.T) {
			ok := h.Observe(transcript.Outcome{Channel: transcript.ChannelSuccess, Text: "done"})
			if !ok.Seen || ok.IsError || ok.Text != "done" {
				t.Errorf("success: %+v", ok)
			}
			te := h.Observe(transcript.Outcome{Channel: transcript.ChannelToolError, Text: "Do not retry."})
			if !te.Seen || !te.IsError || te.Text != "Do not retry." {
				t.Errorf("tool error: %+v", te)
			}
		})
	}
}

func TestHostByName(t *testing.T) {
	custom := []persona.HostProfile{
		{Name: "chat-host", ProtocolError: "generic", GenericText: "Error executing tool"},
		{Name: "swallow", ProtocolError: "raw"}, // a scenario may redefine a built-in
		{Name: "broken", ProtocolError: "shout"},
	}
	t.Run("defaults", func(t *testing.T) {
		h, err := persona.HostByName("chat-host", custom)
		if err != nil {
			t.Fatal(err)
		}
		want := persona.HostProfile{Name: "chat-host", ProtocolError: "generic", GenericText: "Error executing tool", NoResponse: "generic", AfterCrash: persona.CrashReconnectOnce}
		if diff := cmp.Diff(want, h); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if got := h.Observe(transcript.Outcome{Channel: transcript.ChannelProtocolError}).Text; got != "Error executing tool" {
			t.Errorf("generic text = %q", got)
		}
	})
	t.Run("override", func(t *testing.T) {
		h, err := persona.HostByName("swallow", custom)
		if err != nil || h.ProtocolError != "raw" {
			t.Errorf("got %+v, %v; want the scenario's swallow", h, err)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		if _, err := persona.HostByName("broken", custom); err == nil || !strings.Contains(err.Error(), "shout") {
			t.Errorf("err = %v, want one naming the bad value", err)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		_, err := persona.HostByName("nope", custom)
		if err == nil || !strings.Contains(err.Error(), "generic, raw, swallow") {
			t.Errorf("err = %v, want one listing the known profiles", err)
		}
	})
	t.Run("builtins fresh", func(t *testing.T) {
		a := persona.BuiltinHosts()
		a[0].Name = "changed"
		if persona.BuiltinHosts()[0].Name != "swallow" {
			t.Error("BuiltinHosts shares state between calls")
		}
	})
}
