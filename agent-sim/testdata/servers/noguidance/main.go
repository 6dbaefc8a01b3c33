// Command noguidance uses the right channel with a useless message: every
// create_order failure is an isError result reading "order failed" (list
// failures: "lookup failed"). No retry guidance (MC005), no next action
// (MC006), an unknown write outcome not stated as unknown (MC004); the
// stubborn persona retries it to the budget (MC002). Its annotations are
// honest (create_order claims nothing), so it does not trip MC009.
package main

import "github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"

func main() {
	orders.GoSDK{
		Name:   "noguidance",
		Create: orders.PlainCreate(),
		List:   orders.PlainList(),
		// No idempotency key: every POST that reaches the upstream commits.
		Replies: orders.NoGuidance,
	}.Main()
}
