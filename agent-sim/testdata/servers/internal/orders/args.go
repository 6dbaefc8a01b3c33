package orders

// CreateArgs are create_order's arguments; go-sdk servers derive the
// input schema from the struct (both fields required).
type CreateArgs struct {
	SKU string `json:"sku" jsonschema:"the product's SKU, like SKU-1"`
	Qty int    `json:"qty" jsonschema:"how many to order"`
}

// ListArgs are list_orders' arguments.
type ListArgs struct {
	SKU string `json:"sku" jsonschema:"the product's SKU"`
}
