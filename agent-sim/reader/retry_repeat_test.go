package reader

import "testing"

// TestRepeatOrderUnbounded: an order to repeat the call with no bound is
// an unbounded retry, and after an outcome stated unknown, with nothing
// to check first, an unsafe invitation; a condition or changed arguments
// make it no bare repeat, and another tool called again is a next step.
func TestRepeatOrderUnbounded(t *testing.T) {
	ctx := Context{Current: Tool{Name: "adjust_stock", Params: []string{"sku", "delta"}},
		Tools: []Tool{{Name: "adjust_stock"}, {Name: "get_stock_level"}}}
	for _, tc := range []struct {
		text   string
		retry  RetryKind
		unsafe bool
	}{
		{"Stock adjustment of -40 units maybe was applied or maybe not. Please to send again the same request, system will handle it.", RetryUnbounded, true},
		{"Some or all of them may already have gone out. Keep retrying the send until you get a delivery receipt.", RetryUnbounded, true},
		{"The warehouse did not answer. Just run adjust_stock again.", RetryUnbounded, false},
		{"If the level is unchanged, run adjust_stock again.", RetryAfterCheck, false},
		{"The warehouse did not answer. Just call get_stock_level again.", RetryNone, false},
		{"The warehouse did not answer. Run get_stock_level again to see the level.", RetryNone, false},
		{"Send it again with delta set to -4.", RetryNone, false},
		{"Do not send it again.", DoNotRetry, false},
	} {
		s := Read(Reply{Channel: ToolError, Text: tc.text}, ctx)
		if s.Retry.Kind != tc.retry || s.Unsafe.Set != tc.unsafe {
			t.Errorf("%q: retry %q unsafe %v, want %q %v", tc.text, s.Retry.Kind, s.Unsafe.Set, tc.retry, tc.unsafe)
		}
	}
}

// TestDelayInWordsThenRepeat: a delay in words followed by the call's
// verb once more is one retry after that delay; a check after the delay
// is not a repeat.
func TestDelayInWordsThenRepeat(t *testing.T) {
	ctx := Context{Current: Tool{Name: "publish_post"}, Tools: []Tool{{Name: "publish_post"}, {Name: "get_post"}}}
	for _, tc := range []struct {
		text  string
		retry RetryKind
	}{
		{"The media library is re-indexing; please wait two minutes and publish once more. Please do not delete the draft.", RetryBounded},
		{"Wait five minutes, then send it again.", RetryBounded},
		{"Wait five minutes and check again whether it is live.", RetryAfterCheck},
	} {
		if got := Read(Reply{Channel: ToolError, Text: tc.text}, ctx).Retry.Kind; got != tc.retry {
			t.Errorf("%q: retry %q, want %q", tc.text, got, tc.retry)
		}
	}
}
