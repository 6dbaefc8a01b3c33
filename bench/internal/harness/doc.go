// Package harness runs the benchmark: it starts the upstream and the
// proxies under test as separate processes (so each proxy's CPU time and
// memory can be read from /proc alone), drives load at them interleaved
// round by round, and prints medians and ratios against the targets of
// the fault layer's issue.
//
// The targets are the upstream direct; the plain two-goroutine io.Copy
// proxy (the cost of one hop); mcpchaos with no rule, through a tcp
// upstream and, for HTTP loads, through an http upstream; and Toxiproxy.
// One test also measures a fault: large HTTP bodies through mcpchaos http
// (and Toxiproxy) under a 1 ms latency, with the proxy's peak memory.
package harness
