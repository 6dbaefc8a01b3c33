package agentsim

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shippingTools is the demo's tool set plus an invoice pair from the
// reading, so next-tool and argument heuristics have real names to find.
var shippingTools = []Tool{
	{Name: "create_shipment", Params: []string{"order_id", "address", "idempotency_key"}, Required: []string{"order_id", "address"}},
	{Name: "find_shipments", Params: []string{"order_id"}, ReadOnly: true, Idempotent: true},
	{Name: "get_shipment", Params: []string{"shipment_id"}, ReadOnly: true, Idempotent: true},
	{Name: "fetch_invoice", Params: []string{"invoice_id", "ledger"}, ReadOnly: true},
	{Name: "list_ledgers", ReadOnly: true},
}

const (
	carefulUnknown = "The carrier did not answer in time, so the shipment for order A-1001 may or may not have been created. " +
		"Do not retry create_shipment yet: call find_shipments with order_id A-1001 to check. " +
		"If it lists no shipment, calling create_shipment again with the same order_id and address is safe: it cannot create a duplicate."
	carefulUnreachable = "The carrier API cannot be reached right now (connection refused). Nothing was created. " +
		"Retry once in a minute; if it fails again, stop and tell the user shipments cannot be created at the moment."
	ledgerNotFound = "No invoice with id INV-88213 exists in the primary ledger. Ids in the INV-88xxx range issued before 2026-01-31 " +
		"belong to subsidiary ledgers; use list_ledgers to find the right one, then fetch_invoice with the ledger argument. " +
		"Do not retry this call unchanged."
)

func TestExtractRetryGuidance(t *testing.T) {
	tests := []struct {
		name, text       string
		dnr, after, tran string // expected non-empty (the substring they quote) or ""
		limit            int
	}{
		{"do not retry", "Invoice not found. Do not retry this call.", "Do not retry this call.", "", "", 0},
		{"don't retry", "Don't retry: the card was declined.", "Don't retry", "", "", 0},
		{"will not help", "Retrying will not help.", "Retrying will not help.", "", "", 0},
		{"permanent", "This is a permanent failure.", "permanent", "", "", 0},
		{"will not succeed", "The call will not succeed for this account.", "will not succeed", "", "", 0},
		{"not permanent", "This failure is not permanent.", "", "", "", 0},
		{"retry once", carefulUnreachable, "", "Retry once in a minute;", "right now", 1},
		{"retry twice", "Retry twice, then give up.", "", "Retry twice", "", 2},
		{"retry up to", "You may retry up to 3 times.", "", "retry up to 3 times", "", 3},
		{"retry in seconds", "Try again in 30 seconds.", "", "Try again in 30 seconds.", "", 0},
		{"more than", "Do not retry more than twice.", "", "Do not retry more than twice.", "", 2},
		{"bound ends in stop", "Retry once; if it fails again, do not retry.", "", "Retry once;", "", 1},
		{"unconditional stop wins", "Do not retry. Retry once.", "Do not retry.", "Retry once.", "", 1},
		{"try again later", "The service is temporarily unavailable. Try again later.", "", "", "temporarily", 0},
		{"unavailable right now", "Billing is unavailable right now.", "", "", "unavailable right now", 0},
		{"not temporary", "This is not temporary.", "", "", "", 0},
		{"huge bound capped", "Retry up to 100000 times.", "", "Retry up to 100000 times.", "", 100},
		{"vague", "shipment failed", "", "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Extract(tt.text, shippingTools, "create_shipment")
			checkPhrase(t, "DoNotRetry", f.DoNotRetry, tt.dnr)
			checkPhrase(t, "RetryAfter", f.RetryAfter, tt.after)
			checkPhrase(t, "Transient", f.Transient, tt.tran)
			if f.RetryLimit != tt.limit {
				t.Errorf("RetryLimit = %d, want %d", f.RetryLimit, tt.limit)
			}
		})
	}
}

// checkPhrase asserts a phrase field is empty when want is, and otherwise
// quotes text containing want.
func checkPhrase(t *testing.T, field, got, want string) {
	t.Helper()
	if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
		t.Errorf("%s = %q, want containing %q", field, got, want)
	}
}

func TestExtractOutcomeUnknown(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"may or may not", carefulUnknown, "may or may not have been created"},
		{"outcome is unknown", "The outcome is unknown.", "outcome is unknown"},
		{"could not confirm", "We could not confirm the payment.", "could not confirm"},
		{"may have been charged", "The card may have been charged.", "may have been charged"},
		{"definite failure", "The shipment failed. Nothing was created.", ""},
		{"not unknown", "The outcome is known: it was created.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkPhrase(t, "OutcomeUnknown", Extract(tt.text, shippingTools, "create_shipment").OutcomeUnknown, tt.want)
		})
	}
}

func TestExtractNextTools(t *testing.T) {
	tests := []struct {
		name, text, current string
		want                []string
	}{
		{"call", carefulUnknown, "create_shipment", []string{"find_shipments"}},
		{"use then same tool changed", ledgerNotFound, "fetch_invoice", []string{"list_ledgers", "fetch_invoice"}},
		{"check with", "Check with find_shipments before retrying.", "create_shipment", []string{"find_shipments"}},
		{"backticks and tool word", "Use the `get_shipment` tool.", "create_shipment", []string{"get_shipment"}},
		{"list continuation", "Use find_shipments or get_shipment.", "create_shipment", []string{"find_shipments", "get_shipment"}},
		{"mention without verb", "find_shipments is slow today.", "create_shipment", nil},
		{"negated", "Do not call get_shipment.", "create_shipment", nil},
		{"same tool same args", "Call create_shipment again with the same order_id.", "create_shipment", nil},
		{"same tool unchanged", "Call create_shipment again.", "create_shipment", nil},
		{"unknown tool", "Call refund_order.", "create_shipment", nil},
		{"part of identifier", "Call find_shipments_v2.", "create_shipment", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Extract(tt.text, shippingTools, tt.current)
			if diff := cmp.Diff(tt.want, f.NextTools); diff != "" {
				t.Errorf("NextTools (-want +got):\n%s", diff)
			}
			if len(tt.want) > 0 && f.NextToolPhrase == "" {
				t.Error("NextToolPhrase is empty")
			}
		})
	}
}

func TestExtractArgHints(t *testing.T) {
	tests := []struct {
		name, text, current string
		want                map[string]any
	}{
		{"force", "Retry with force: true.", "create_shipment", map[string]any{"force": true}},
		{"set key", "Set idempotency_key and retry.", "create_shipment", map[string]any{"idempotency_key": nil}},
		{"assign schema arg", `Retry with idempotency_key="k-1".`, "create_shipment", map[string]any{"idempotency_key": "k-1"}},
		{"set to", "Set the order_id to 42.", "create_shipment", map[string]any{"order_id": 42}},
		{"the X argument", ledgerNotFound, "fetch_invoice", map[string]any{"ledger": nil}},
		{"status is not a hint", "error: timeout, status: 502", "create_shipment", nil},
		{"never force", "Never set force: true.", "create_shipment", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Extract(tt.text, shippingTools, tt.current).ArgHints
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ArgHints (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractImperatives(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"plain", "Shipment failed. Call find_shipments.", []string{"Call find_shipments."}},
		{"please", "Please try again later.", []string{"Please try again later."}},
		{"conditional", carefulUnreachable, []string{"Retry once in a minute;",
			"if it fails again, stop and tell the user shipments cannot be created at the moment."}},
		{"statements only", "The carrier refused. Nothing was created.", nil},
		{"gerund is not imperative", "Retrying will not help.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Extract(tt.text, shippingTools, "create_shipment").Imperatives); diff != "" {
				t.Errorf("Imperatives (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractUnsafe(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"retry with force", "Retry with force to overwrite it.", "Retry with force"},
		{"force true", "Set `force: true` and call again.", "force: true"},
		{"permanent then try again", "This failure is permanent. Try again later.", "Try again later."},
		{"do not retry then retry", "Do not retry; it will not succeed. Retry the call.", "Retry the call."},
		{"bounded stop is safe", "Retry once; if it fails again, do not retry.", ""},
		{"changed args is safe", ledgerNotFound, ""},
		{"conditional retry is safe", "The card was declined permanently. If the user adds a card, try again.", ""},
		{"forbidden force is safe", "Never set force: true.", ""},
		{"careful unknown is safe", carefulUnknown, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkPhrase(t, "Unsafe", Extract(tt.text, shippingTools, "create_shipment").Unsafe, tt.want)
		})
	}
}

func TestExtractUpstreamError(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"bad gateway", "502 Bad Gateway", "502 Bad Gateway"},
		{"refused", "dial tcp: connection refused", "dial tcp"},
		{"io timeout", "read: i/o timeout", "i/o timeout"},
		{"eof", "unexpected EOF", "unexpected EOF"},
		{"deadline", "context deadline exceeded", "context deadline exceeded"},
		{"eof as word is not", "the eof marker", ""},
		{"created", `{"id":"SHP-1","status":"created"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Extract(tt.text, nil, "").UpstreamError; got != tt.want {
				t.Errorf("UpstreamError = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExtractBounds(t *testing.T) {
	long := strings.Repeat("word ", 20) + "Do not retry " + strings.Repeat("x", 500) + "."
	f := Extract(long, nil, "")
	if len(f.DoNotRetry) > maxPhrase+len("…") {
		t.Errorf("phrase is %d bytes, want at most %d", len(f.DoNotRetry), maxPhrase)
	}
	huge := strings.Repeat("a", maxGuidanceText) + " Do not retry. Reached db.internal:5432."
	if f := Extract(huge, nil, ""); f.DoNotRetry != "" || len(f.Leaks) != 1 {
		t.Errorf("guidance past %d bytes was read (%q), or a leak before %d bytes was not (%v)",
			maxGuidanceText, f.DoNotRetry, maxFeatureText, f.Leaks)
	}
	if f := Extract(strings.Repeat("a", maxFeatureText)+" db.internal:5432", nil, ""); len(f.Leaks) != 0 {
		t.Errorf("text past %d bytes was read: %v", maxFeatureText, f.Leaks)
	}
	many := strings.Repeat("Call find_shipments. ", 100)
	if f := Extract(many, shippingTools, ""); len(f.Imperatives) != maxImperatives {
		t.Errorf("%d imperatives, want the first %d", len(f.Imperatives), maxImperatives)
	}
	if f := Extract("", nil, ""); !cmp.Equal(f, Features{}) {
		t.Errorf("empty text has features: %+v", f)
	}
}

func TestNextActionPhrase(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"tool", carefulUnknown, "call find_shipments"},
		{"tell the user", carefulUnreachable, "tell the user"},
		{"retry only", "Please try again later.", ""},
		{"nothing", "Invoice not found.", ""},
		{"arg hint", "Bad request: set idempotency_key.", "set idempotency_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkPhrase(t, "next action", nextActionPhrase(Extract(tt.text, shippingTools, "create_shipment")), tt.want)
		})
	}
}
