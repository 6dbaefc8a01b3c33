package reader

import "testing"

// TestTokenizeClauses checks the clause splitter: where clauses end, and
// which ones only suppose (a condition) or imagine (would).
func TestTokenizeClauses(t *testing.T) {
	for _, tc := range []struct {
		low  string
		want []string // each clause's words joined, "?" before a condition, "~" before a hypothetical
	}{
		{"if it isn't, sending it again is fine", []string{"?if it isn't", "sending it again is fine"}},
		{"retry only once you have verified that it is not posted", []string{"retry only", "?once you have verified", "?that it is not posted"}},
		{"retrying: pointless, the account will stay closed", []string{"retrying pointless", "the account will stay closed"}},
		{"had the carrier accepted the request, you would see a number", []string{"?had the carrier accepted the request", "~you would see a number"}},
		{"the charge went through but the receipt was lost", []string{"the charge went through", "but the receipt was lost"}},
		{"once more, try again", []string{"once more", "try again"}},
		{"it's fine to retry as long as search_tickets shows nothing", []string{"it's fine to retry", "?as long as search_tickets shows nothing"}},
	} {
		s := tokenize(tc.low)
		var got []string
		for _, c := range s.clauses {
			w := ""
			if c.cond {
				w = "?"
			} else if c.hypo {
				w = "~"
			}
			for j := c.from; j < c.to; j++ {
				if j > c.from {
					w += " "
				}
				w += s.toks[j].w
			}
			got = append(got, w)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: clauses %q, want %q", tc.low, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: clauses %q, want %q", tc.low, got, tc.want)
				break
			}
		}
	}
}

// TestNegationScope checks that two negations cancel and that a
// whether-clause ends a negation's scope.
func TestNegationScope(t *testing.T) {
	for _, tc := range []struct {
		low, word string
		want      bool
	}{
		{"nothing was written to the table", "written", true},
		{"there's no reason not to try again", "try", false},
		{"it does not say whether it was created", "created", false},
		{"the refund was issued", "issued", false},
	} {
		s := tokenize(tc.low)
		i := -1
		for k, tk := range s.toks {
			if tk.w == tc.word {
				i = k
			}
		}
		if i < 0 {
			t.Fatalf("%q: no %q", tc.low, tc.word)
		}
		if got := s.negatedAt(i, 5); got != tc.want {
			t.Errorf("%q: %q negated = %v, want %v", tc.low, tc.word, got, tc.want)
		}
	}
}

// TestClauseReadings checks readings that only the clause rules give,
// each against the reading a phrase list would miss or get wrong.
func TestClauseReadings(t *testing.T) {
	ctx := Context{
		Tools:   []Tool{{Name: "charge_card"}, {Name: "list_charges"}, {Name: "get_charge"}},
		Current: Tool{Name: "charge_card", Params: []string{"amount", "currency", "skip_duplicate_check"}},
	}
	for _, tc := range []struct {
		text    string
		retry   RetryKind
		limit   int
		outcome OutcomeState
		next    string
		unsafe  bool
	}{
		{text: "Transfer refused: the destination account is closed.", outcome: OutcomeNotCommitted},
		{text: "We've lost contact with the processor, so we can't say whether the card has been charged. Please have a look in list_charges before you have another go.",
			retry: RetryAfterCheck, outcome: OutcomeUnknown, next: "list_charges"},
		{text: "Two more attempts are fine, spaced a minute apart; beyond that, stop and report.", retry: RetryBounded, limit: 2},
		{text: "You can try again after midnight UTC.", retry: RetryBounded, limit: 1},
		{text: "This was a network blip, not a permanent failure, so there's no reason not to try again shortly.", retry: RetryUnbounded},
		{text: "Every further charge will be refused in exactly the same way, so stop calling charge_card.", retry: DoNotRetry},
		{text: "## Charge blocked\n**Do not** retry: the card is reported stolen.", retry: DoNotRetry},
		{text: "Error code: 429 - {'error': {'message': 'Please try again in 12.26s.'}}"},
		{text: "The outcome is not unknown: the processor declined the charge, so nothing was taken.", outcome: OutcomeNotCommitted},
		{text: "The charge is confirmed, but the receipt could not be sent.", outcome: OutcomeCommitted},
		{text: "Duplicate detected. Set skip_duplicate_check to true and resubmit.", unsafe: true},
		{text: "The charge may exist. Retrying without checking list_charges first could charge twice.",
			retry: RetryAfterCheck, outcome: OutcomeUnknown, next: "list_charges"},
	} {
		s := Read(Reply{Channel: ToolError, Text: tc.text}, ctx)
		next := ""
		if len(s.Next.Tools) > 0 {
			next = s.Next.Tools[0]
		}
		if s.Retry.Kind != tc.retry || s.Retry.Limit != tc.limit || s.Outcome.State != tc.outcome || next != tc.next || s.Unsafe.Set != tc.unsafe {
			t.Errorf("%q:\n got retry=%q/%d outcome=%q next=%q unsafe=%v\nwant retry=%q/%d outcome=%q next=%q unsafe=%v", tc.text,
				s.Retry.Kind, s.Retry.Limit, s.Outcome.State, next, s.Unsafe.Set, tc.retry, tc.limit, tc.outcome, tc.next, tc.unsafe)
		}
	}
}

// TestStripMarkdown checks that markup is removed and code quotes kept.
func TestStripMarkdown(t *testing.T) {
	for in, want := range map[string]string{
		"**Do not** retry":             "Do not retry",
		"## Next step\n- run `x`":      " Next step\n run `x`",
		"> may have\n1. Check it":      " may have\n Check it",
		"create_shipment failed":       "create_shipment failed",
		"a * b and *not* this":         "a * b and not this",
		"• reason: closed\n  - nested": " reason: closed\n   nested",
		"| field | value |\n|---|---|\n| before dispatching again | call `get_mission` |\nafter": "field: value\n\nbefore dispatching again: call `get_mission`\nafter",
		"a | b is no table": "a | b is no table",
	} {
		if got := stripMarkdown(in); got != want {
			t.Errorf("stripMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}
