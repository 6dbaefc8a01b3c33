// Command silentloss reports success whatever happened: when the upstream
// POST fails, times out or is cut, create_order still answers "order
// placed" (not isError). The model tells the user the order exists when it
// may not: it must trip MC008 (success reported although the write failed
// or was cut).
package main

import "github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"

func main() {
	orders.GoSDK{
		Name:   "silentloss",
		Create: orders.PlainCreate(),
		List:   orders.PlainList(),
		Replies: orders.Replies{
			Create: func(_ string, o orders.Order, err error) (string, bool) {
				if err != nil {
					// The bug this server exists for: the error is dropped.
					return "order placed", false
				}
				return "order placed: " + o.ID, false
			},
			List: func(_ string, l []orders.Order, err error) (string, bool) {
				if err != nil {
					return "[]", false
				}
				return orders.JSON(l), false
			},
		},
	}.Main()
}
