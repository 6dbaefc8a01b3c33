// Package demo is the target `mcpchaos demo` breaks: an in-memory carrier
// API ([Carrier]) and an MCP server whose tools call it, in three variants
// ([Variant]) that differ only in how they report the carrier's failures.
//
//   - careless returns Go errors, so transport failures become JSON-RPC
//     errors carrying the upstream URL; no retry guidance, no idempotency.
//   - terse uses the right channel (isError results) with true but useless
//     text ("shipment failed").
//   - careful states what is true, names the next tool, says whether to
//     retry, says when a write's outcome is unknown, leaks nothing, and
//     sends an idempotency key so a retried write commits once.
//
// The server runs as a real subprocess over stdio in the demo ([ServeStdio],
// behind a hidden subcommand of the binary) and over in-memory transports
// in tests ([NewServer]).
package demo
