package front

// Channel is how a tools/call came back. The values are the simulator's:
// a live call and a simulated one are graded alike.
type Channel string

// Channels.
const (
	// ChannelSuccess is a result without isError.
	ChannelSuccess Channel = "success"
	// ChannelToolError is a result with isError: true, read by the model.
	ChannelToolError Channel = "tool_error"
	// ChannelProtocolError is a JSON-RPC error object, read by the client.
	ChannelProtocolError Channel = "protocol_error"
	// ChannelNoResponse means no reply came: the client cancelled the call
	// or the session ended first.
	ChannelNoResponse Channel = "no_response"
	// ChannelServerExit means the server process exited during the call
	// (stdio); Code is its exit status.
	ChannelServerExit Channel = "server_exit"
	// ChannelTransportError is a failure below JSON-RPC: an HTTP status
	// without a JSON-RPC body (Code), a connection that dropped.
	ChannelTransportError Channel = "transport_error"
)

// Channels lists every channel, in the simulator's order.
func Channels() []Channel {
	return []Channel{ChannelSuccess, ChannelToolError, ChannelProtocolError, ChannelNoResponse,
		ChannelServerExit, ChannelTransportError}
}
