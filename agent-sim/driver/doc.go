// Package driver is the simulator's MCP client: [Connect] starts a stdio
// server (a process it owns, stopped with its process group) or dials a
// Streamable HTTP one, completes the handshake for the asked protocol
// version and lists the tools; [Session.Call] makes one tools/call and
// classifies what came back as a [transcript.Outcome] on its channel:
// success, tool error, protocol error, no response within the call's
// deadline (with a late reply caught during the late grace), server exit
// (a crash, with the end of its stderr) or transport error.
//
// It is built on the official MCP Go SDK's client, and records; it does
// not decide anything (that is the persona's) nor grade (the judge's).
package driver
