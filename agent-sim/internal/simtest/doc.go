// Package simtest holds the fixtures the simulator's tests share: the
// demo's tools and replies written the careful way, call records built
// by hand, a scripted server for the personas, the MCP test server (in
// process, or as the test binary re-run as a stdio server) and the
// precision and recall score of the corpus tests. Only tests import it.
package simtest
