package simtest

import "github.com/mcpchaos/mcpchaos/agent-sim/transcript"

// ShippingTools is the demo's tool set plus an invoice pair from the
// reading, so next-tool and argument heuristics have real names to find.
var ShippingTools = []transcript.Tool{
	{Name: "create_shipment", Params: []string{"order_id", "address", "idempotency_key"}, Required: []string{"order_id", "address"}},
	{Name: "find_shipments", Params: []string{"order_id"}, ReadOnly: true, Idempotent: true},
	{Name: "get_shipment", Params: []string{"shipment_id"}, ReadOnly: true, Idempotent: true},
	{Name: "fetch_invoice", Params: []string{"invoice_id", "ledger"}, ReadOnly: true},
	{Name: "list_ledgers", ReadOnly: true},
}

// Replies written the careful way: an unknown outcome, an unreachable
// upstream, a lookup that found nothing.
const (
	CarefulUnknown = "The carrier did not answer in time, so the shipment for order A-1001 may or may not have been created. " +
		"Do not retry create_shipment yet: call find_shipments with order_id A-1001 to check. " +
		"If it lists no shipment, calling create_shipment again with the same order_id and address is safe: it cannot create a duplicate."
	CarefulUnreachable = "The carrier API cannot be reached right now (connection refused). Nothing was created. " +
		"Retry once in a minute; if it fails again, stop and tell the user shipments cannot be created at the moment."
	LedgerNotFound = "No invoice with id INV-88213 exists in the primary ledger. Ids in the INV-88xxx range issued before 2026-01-31 " +
		"belong to subsidiary ledgers; use list_ledgers to find the right one, then fetch_invoice with the ledger argument. " +
		"Do not retry this call unchanged."
)
