// Package inject puts a fault-injecting proxy in front of each upstream an
// MCP server's tools depend on.
//
// A [Registry] owns the proxies (one per [UpstreamSpec], protocol "tcp" or
// "http"), the rule table that decides which [Fault] applies, and the
// event [Bus] that reports every connection, exchange and injection.
//
// Each fault kind lives in its own file and implements [StreamFault] (its
// effect on one direction of a TCP connection) and/or [ExchangeFault] (its
// effect on one HTTP exchange), using the primitives of [Stream] and
// [Exchange] that the proxies provide. [Kinds] is the explicit registry of
// kinds.
//
// The idle data path is a plain copy: while no rule applies to a TCP
// connection it is spliced (splice(2) on Linux, io.Copy elsewhere), and
// while no rule can apply to an HTTP upstream a request is reverse-proxied
// as is. A rule change kicks live connections out of the fast path before
// the call that made it returns, so faults reach connections that are
// already open, from their next byte.
package inject
