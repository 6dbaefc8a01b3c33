// Package upstream is the benchmark's upstream: an HTTP server answering
// with a 13-byte body (and, for the large-body test, swallowing or
// serving a body of a requested size), a bulk server that sends or swallows
// a requested number of bytes, and an echo server for idle and live
// connections. All three run in one process so that every target is
// measured against the very same upstream.
package upstream
