// Command panicky dies mid-call: create_order panics when the upstream call
// fails (the familiar must(err)), and go-sdk does not recover handler
// panics, so the process exits with status 2 and a Go stack trace on stderr
// while the client waits for the reply. With a healthy upstream it works;
// any fault on the POST (or an unreachable UPSTREAM_URL) kills it. The
// simulator must report the call's channel as server_exit and capture the
// exit code and stderr tail.
package main

import "github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"

func main() {
	orders.GoSDK{
		Name:    "panicky",
		Create:  orders.PlainCreate(),
		List:    orders.PlainList(),
		Replies: orders.Replies{Create: must[orders.Order], List: must[[]orders.Order]},
	}.Main()
}

// must is the bug this server exists for: an upstream failure panics.
func must[T any](_ string, v T, err error) (string, bool) {
	if err != nil {
		panic(err)
	}
	return orders.JSON(v), false
}
