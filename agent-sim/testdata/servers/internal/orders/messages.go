package orders

import (
	"fmt"
	"strings"
)

// Placed is a careful server's success text.
func Placed(o Order) string {
	return fmt.Sprintf("Order %s placed: %d × %s.", o.ID, o.Qty, o.SKU)
}

// CreateMessage is a careful server's tool-error text after create_order
// failed: what is true, whether to retry, what to call next.
func CreateMessage(sku string, err error) string {
	e := AsError(err)
	stop := "if it fails again, stop and tell the user orders cannot be placed at the moment."
	switch e.Kind {
	case Unreachable:
		return fmt.Sprintf("The order service cannot be reached right now (%s). Nothing was ordered. Retry once in a minute; %s",
			e.Cause, stop)
	case Busy:
		return fmt.Sprintf("The order service is overloaded and refused the order (%s). Nothing was ordered. Retry once in a minute; %s",
			e.Cause, stop)
	case Rejected:
		return fmt.Sprintf("The order service rejected the order for %s (%s). Nothing was ordered. "+
			"Do not retry this call unchanged; confirm the sku and qty with the user.", sku, e.Cause)
	case Cut:
		return fmt.Sprintf("The order service accepted the order for %s, but its reply was cut off, so the order id is unknown. "+
			"Do not retry create_order: call list_orders with sku %s to get it.", sku, sku)
	default:
		return fmt.Sprintf("The order service did not confirm the order for %s (%s), so it may or may not have been placed. "+
			"Do not retry create_order yet: call list_orders with sku %s to check. If it lists no order, calling "+
			"create_order again with the same sku and qty is safe: it cannot create a duplicate.", sku, e.Cause, sku)
	}
}

// ReadMessage is a careful server's tool-error text after list_orders
// failed.
func ReadMessage(err error) string {
	e := AsError(err)
	if e.Kind == Rejected {
		return fmt.Sprintf("The order service refused the lookup (%s). Do not retry; tell the user order lookups are unavailable.", e.Cause)
	}
	return fmt.Sprintf("The order service did not answer the lookup (%s). Nothing was changed: this is a read. "+
		"Retry once; if it fails again, stop and tell the user order lookups are unavailable.", e.Cause)
}

// ListMessage is a careful server's list_orders text, including what it
// means for a create_order whose outcome was unknown.
func ListMessage(sku string, l []Order) string {
	if len(l) == 0 {
		return fmt.Sprintf("No order exists for %s. Calling create_order with this sku and qty is safe: "+
			"a repeated request cannot create a duplicate.", sku)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s has %d order(s):\n", sku, len(l))
	for _, o := range l {
		fmt.Fprintf(&b, "- %s, qty %d\n", o.ID, o.Qty)
	}
	b.WriteString("These orders exist; do not call create_order again for them.")
	return b.String()
}
