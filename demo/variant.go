package demo

import "fmt"

// Variant selects how the demo server reports the carrier's failures.
type Variant string

// Variants.
const (
	// Careless returns Go errors: transport failures become JSON-RPC
	// errors with the upstream URL, carrier statuses become raw isError
	// text. No annotations, no retry guidance, no idempotency.
	Careless Variant = "careless"
	// Terse uses isError results that are true and useless ("shipment
	// failed", "not found"). No retry guidance, no idempotency.
	Terse Variant = "terse"
	// Careful says what is true, names the next tool, says whether to
	// retry, states unknown write outcomes, leaks nothing, and makes
	// create_shipment idempotent.
	Careful Variant = "careful"
)

// Variants returns every variant, from worst to best.
func Variants() []Variant { return []Variant{Careless, Terse, Careful} }

// ParseVariant returns the variant named s.
func ParseVariant(s string) (Variant, error) {
	for _, v := range Variants() {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown demo variant %q (want careless, terse or careful)", s)
}
