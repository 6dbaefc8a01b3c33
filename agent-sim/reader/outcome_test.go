package reader

import "testing"

// TestOutcomeExists: "already exists" is read wherever the upstream says
// it, a quoted body or a wrapping prefix included, but not in a
// condition or a denial.
func TestOutcomeExists(t *testing.T) {
	ctx := Context{Current: Tool{Name: "create_contact", Params: []string{"email"}}, Tools: []Tool{{Name: "create_contact"}, {Name: "get_contact"}}}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"409 already exists: external_id ENV-2231 -> S-24-08830. not registered twice.", true},
		{`HubSpot API 409: {"status":"error","message":"Contact already exists. Existing ID: 51234901"}`, true},
		{"ERROR: duplicate key value violates unique constraint \"contacts_email_key\"", true},
		{"The contact has already been created; no new one was made.", true},
		{"If the contact already exists, fetch it with get_contact.", false},
		{"The contact does not already exist, so nothing was merged.", false},
		{"Check whether it already exists before calling create_contact again.", false},
		{"upstream timed out after 30s", false},
	} {
		if got := Read(Reply{Channel: ToolError, Text: tc.text}, ctx).Outcome.Exists; got != tc.want {
			t.Errorf("%q: Exists = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestOutcomePartialShares: a write stated by a share of it, or by what
// failed beside what worked, is an unknown outcome stated part by part;
// a count with nothing left undone is not.
func TestOutcomePartialShares(t *testing.T) {
	ctx := Context{Current: Tool{Name: "import_rows"}, Tools: []Tool{{Name: "import_rows"}}}
	for _, tc := range []struct {
		text    string
		partial bool
	}{
		{"Only part of the batch was applied before the connection dropped.", true},
		{"Not all of the messages went out.", true},
		{"3 succeeded, 2 failed.", true},
		{"Import stopped: the remaining 40 rows are still queued.", true},
		{"2 of 5 files were not uploaded.", true},
		{"Partial success: the header row was rejected.", true},
		{"All 5 rows were imported.", false},
		{"Some of your settings look unusual.", false},
	} {
		o := Read(Reply{Channel: ToolError, Text: tc.text}, ctx).Outcome
		if got := o.State == OutcomeUnknown && o.Partial; got != tc.partial {
			t.Errorf("%q: outcome %+v, want partial unknown %v", tc.text, o, tc.partial)
		}
	}
}
