package persona

import (
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"sort"
	"strings"
)

// What a host shows the model, for [HostProfile.ProtocolError] and
// [HostProfile.NoResponse].
const (
	// ShowNothing puts nothing in the model's context.
	ShowNothing = "nothing"
	// ShowGeneric puts the profile's GenericText in the context.
	ShowGeneric = "generic"
	// ShowRaw puts the code and message in the context.
	ShowRaw = "raw"
)

// DefaultGenericText is what a generic host shows when its profile does not
// say.
const DefaultGenericText = "tool call failed"

// HostProfile is what an MCP client (a host) does with a failure before the
// model sees it. Profiles are data so that users can describe their own
// host in a scenario; tool errors and successes reach the model in every
// profile, because they are ordinary results.
type HostProfile struct {
	// Name identifies the profile: swallow, generic, raw, or a user's.
	Name string `yaml:"name" json:"name"`
	// ProtocolError is what the model sees when the server answers with a
	// JSON-RPC error: "nothing", "generic" or "raw". Empty means generic.
	ProtocolError string `yaml:"protocol_error" json:"protocol_error"`
	// GenericText is the text of "generic"; empty means DefaultGenericText.
	GenericText string `yaml:"generic_text,omitempty" json:"generic_text,omitempty"`
	// NoResponse is what the model sees when the call gets no answer
	// (no_response, server_exit, transport_error). Empty means the same
	// as ProtocolError.
	NoResponse string `yaml:"no_response,omitempty" json:"no_response,omitempty"`
	// AfterCrash is what the host does once the server crashed (a stdio
	// process exited, an HTTP connection dropped): "stop" or
	// "reconnect_once". Empty means reconnect_once.
	AfterCrash string `yaml:"after_crash,omitempty" json:"after_crash,omitempty"`
}

// BuiltinHosts returns the three profiles DESIGN.md names: swallow (the
// model sees nothing), generic ("tool call failed") and raw (code and
// message). Each call returns a new slice.
func BuiltinHosts() []HostProfile {
	return []HostProfile{
		{Name: "swallow", ProtocolError: ShowNothing, NoResponse: ShowNothing},
		{Name: "generic", ProtocolError: ShowGeneric, GenericText: DefaultGenericText, NoResponse: ShowGeneric},
		{Name: "raw", ProtocolError: ShowRaw, NoResponse: ShowRaw},
	}
}

// HostByName returns the named profile, looking in extra (a scenario's own
// profiles, which may redefine a built-in name) before the built-ins. The
// profile comes back with its defaults filled in and is validated.
func HostByName(name string, extra []HostProfile) (HostProfile, error) {
	for _, h := range extra {
		if h.Name == name {
			return h.normalized()
		}
	}
	for _, h := range BuiltinHosts() {
		if h.Name == name {
			return h.normalized()
		}
	}
	names := map[string]bool{}
	for _, h := range append(BuiltinHosts(), extra...) {
		names[h.Name] = true
	}
	known := make([]string, 0, len(names))
	for n := range names {
		known = append(known, n)
	}
	sort.Strings(known)
	return HostProfile{}, fmt.Errorf("unknown host profile %q (known: %s)", name, strings.Join(known, ", "))
}

// Validate reports a profile whose fields are not one of the known values.
func (h HostProfile) Validate() error {
	if h.Name == "" {
		return fmt.Errorf("host profile: name is empty")
	}
	for _, f := range []struct{ field, v string }{{"protocol_error", h.ProtocolError}, {"no_response", h.NoResponse}} {
		switch f.v {
		case "", ShowNothing, ShowGeneric, ShowRaw:
		default:
			return fmt.Errorf("host profile %q: %s: %q is not nothing, generic or raw", h.Name, f.field, f.v)
		}
	}
	return h.validateAfterCrash()
}

// normalized fills the defaults and validates.
func (h HostProfile) normalized() (HostProfile, error) {
	if err := h.Validate(); err != nil {
		return HostProfile{}, err
	}
	if h.ProtocolError == "" {
		h.ProtocolError = ShowGeneric
	}
	if h.NoResponse == "" {
		h.NoResponse = h.ProtocolError
	}
	if h.GenericText == "" {
		h.GenericText = DefaultGenericText
	}
	if h.AfterCrash == "" {
		h.AfterCrash = DefaultAfterCrash
	}
	return h, nil
}

// Observe returns what reaches the model after this host handled o.
// Successes and tool errors pass through unchanged in every profile.
func (h HostProfile) Observe(o transcript.Outcome) transcript.Observation {
	switch o.Channel {
	case transcript.ChannelSuccess:
		return transcript.Observation{Seen: true, Text: o.Text}
	case transcript.ChannelToolError:
		return transcript.Observation{Seen: true, IsError: true, Text: o.Text}
	case transcript.ChannelProtocolError:
		return h.show(h.ProtocolError, fmt.Sprintf("MCP error %d: %s", o.Code, o.Text))
	}
	return h.show(h.NoResponse, rawNoResponse(o))
}

// show renders a failure the way mode says; raw is the text a raw host
// would print.
func (h HostProfile) show(mode, raw string) transcript.Observation {
	switch mode {
	case ShowNothing:
		return transcript.Observation{}
	case ShowRaw:
		return transcript.Observation{Seen: true, IsError: true, Text: raw}
	}
	text := h.GenericText
	if text == "" {
		text = DefaultGenericText
	}
	return transcript.Observation{Seen: true, IsError: true, Text: text}
}

// rawNoResponse is what a raw host prints for a call that got no answer:
// the client library's own wording, with the driver's detail if any.
func rawNoResponse(o transcript.Outcome) string {
	var head string
	switch o.Channel {
	case transcript.ChannelNoResponse:
		head = "request timed out"
	case transcript.ChannelServerExit:
		head = "server exited"
	case transcript.ChannelTransportError:
		head = "transport error"
		if o.Code != 0 {
			head = fmt.Sprintf("transport error: HTTP %d", o.Code)
		}
	default:
		head = "tool call failed"
	}
	if o.Text == "" {
		return head
	}
	return head + ": " + o.Text
}
