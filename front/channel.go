package front

import "github.com/mcpchaos/mcpchaos/agent-sim/transcript"

// Channel is how a tools/call came back: the simulator's channels, so
// that a live call and a simulated one are graded alike.
type Channel = transcript.Channel

// The channels, as a front meets them: no_response is a call the client
// cancelled or whose session ended first; server_exit carries the exit
// status as Code; transport_error an HTTP status without a JSON-RPC body,
// or a connection that dropped.
const (
	ChannelSuccess        = transcript.ChannelSuccess
	ChannelToolError      = transcript.ChannelToolError
	ChannelProtocolError  = transcript.ChannelProtocolError
	ChannelNoResponse     = transcript.ChannelNoResponse
	ChannelServerExit     = transcript.ChannelServerExit
	ChannelTransportError = transcript.ChannelTransportError
)

// Channels lists every channel, in the simulator's order.
func Channels() []Channel {
	return []Channel{ChannelSuccess, ChannelToolError, ChannelProtocolError, ChannelNoResponse,
		ChannelServerExit, ChannelTransportError}
}
