package orders

import (
	"encoding/json"
	"fmt"
)

// Reply turns the upstream's answer to a tool call (v, or the request's
// err) into the tool's result text, and whether that is a tool error
// (isError).
type Reply[T any] func(sku string, v T, err error) (text string, isError bool)

// Replies are a server's create_order and list_orders replies.
type Replies struct {
	Create Reply[Order]
	List   Reply[[]Order]
}

// Careful are the careful servers' replies: on failure, what is true,
// whether to retry and what to call next (CreateMessage, ReadMessage).
var Careful = Replies{
	Create: func(sku string, o Order, err error) (string, bool) {
		if err != nil {
			return CreateMessage(sku, err), true
		}
		return Placed(o), false
	},
	List: func(sku string, l []Order, err error) (string, bool) {
		if err != nil {
			return ReadMessage(err), true
		}
		return ListMessage(sku, l), false
	},
}

// NoGuidance are replies on the right channel with a useless message:
// every failure is a tool error reading "order failed" ("lookup failed"
// for list_orders); a success is the upstream's answer as JSON.
var NoGuidance = Replies{
	Create: func(_ string, o Order, err error) (string, bool) {
		if err != nil {
			return "order failed", true
		}
		return JSON(o), false
	},
	List: func(_ string, l []Order, err error) (string, bool) {
		if err != nil {
			return "lookup failed", true
		}
		return JSON(l), false
	},
}

// Definite are replies that present every failure as a definite one
// that committed nothing, with guidance: right for a refused dial or a
// 503, wrong when the fault left the outcome unknown (a hang) or the
// write committed (an error after the upstream).
var Definite = Replies{
	Create: func(sku string, o Order, err error) (string, bool) {
		if err != nil {
			return fmt.Sprintf("The order for %s failed: the order service is unavailable. Nothing was ordered. "+
				"Do not retry; tell the user orders cannot be placed right now.", sku), true
		}
		return Placed(o), false
	},
	List: Careful.List,
}

// JSON is v as JSON text.
func JSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ServiceError is the error a server whose tools fail with a Go error
// returns (tool "create_order": "create_order: order service error
// (connection refused)"); it leaks nothing.
func ServiceError(tool string, err error) error {
	return fmt.Errorf("%s: order service error (%s)", tool, AsError(err).Cause)
}
