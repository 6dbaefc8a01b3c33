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
		{"409 ALREADY EXISTS: external_id ENV-2231", true},
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

// TestOutcomeExistsOwn: an object already there counts as this call's
// only when the reply ties it to the call (its key, an earlier attempt,
// the caller owning it); a bare "already exists" is a name taken, by
// whoever took it.
func TestOutcomeExistsOwn(t *testing.T) {
	ctx := Context{Current: Tool{Name: "create_order", Params: []string{"idempotency_key"}}, Tools: []Tool{{Name: "create_order"}, {Name: "get_order"}}}
	for _, tc := range []struct {
		text        string
		exists, own bool
	}{
		{"error: create_order: 409 duplicate idempotency_key ik-7f3e: order A-20936 already exists for this key", true, true},
		{"409 already exists: external_id ENV-2231 -> S-24-08830 (registered 2s ago, most likely your previous attempt).", true, true},
		{"create_bucket came back with 409 BucketAlreadyOwnedByYou for acme-logs-eu.", false, false},
		{"409 BucketAlreadyExists: the bucket already exists and is owned by you.", true, true},
		{`received response code 409: a Key Value instance named "sessions-cache" already exists in this workspace`, true, false},
		{"DuplicateRegistrationError: attendee 'mina.park@example.org' is already registered for event EV-2031", true, false},
		{"If the order already exists for this key, fetch it with get_order.", false, false},
	} {
		o := Read(Reply{Channel: ToolError, Text: tc.text}, ctx).Outcome
		if o.Exists != tc.exists || o.Own != tc.own {
			t.Errorf("%q: Exists %v Own %v, want %v %v", tc.text, o.Exists, o.Own, tc.exists, tc.own)
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
		{"The event was saved, and invitations went out to 4 of the 6 attendees.", true},
		{"Rollback stuck: 3 of 8 pods are back on 2.13.1, the other 5 still run 2.14.0.", true},
		{"broadcast incomplete", true},
		{"firmware rollout v2.3.1: 38/50 devices updated, 12 not reached.", true},
		{"Execution failed, 2 of 5 loop items failed.", true},
		{"Loader wrote 3 of 7 segments before the disk filled.", true},
		{"sync: 4/9 written, then the link dropped.", true},
		{"import job=j-4 imported=6 failed=2 (rows 7, 9)", true},
		{"import job=j-4 imported=8 failed=0", false},
		{"Report for 12/05 generated; nothing was imported.", false},
		{"All 5 rows were imported.", false},
		{"Some of your settings look unusual.", false},
	} {
		o := Read(Reply{Channel: ToolError, Text: tc.text}, ctx).Outcome
		if got := o.State == OutcomeUnknown && o.Partial; got != tc.partial {
			t.Errorf("%q: outcome %+v, want partial unknown %v", tc.text, o, tc.partial)
		}
	}
}

// TestStructuredDoubtAndNext: a logfmt or JSON done-flag whose value is a
// doubt states the outcome unknown, and a "next" step after it is a check
// before any repeat.
func TestStructuredDoubtAndNext(t *testing.T) {
	ctx := Context{Current: Tool{Name: "close_ticket", Params: []string{"ticket_id"}}, Tools: []Tool{{Name: "close_ticket"}, {Name: "get_ticket"}}}
	for _, text := range []string{
		`level=error op=close_ticket err="read tcp: connection reset by peer" applied=unsure next="get_ticket ticket_id=7734, then decide whether to close again"`,
		`{"error": "timeout", "applied": "unknown", "next": "call get_ticket before closing it again"}`,
	} {
		s := Read(Reply{Channel: ToolError, Text: text}, ctx)
		if s.Outcome.State != OutcomeUnknown || s.Retry.Kind != RetryAfterCheck || len(s.Next.Tools) != 1 || s.Next.Tools[0] != "get_ticket" {
			t.Errorf("%s: outcome %q retry %q next %v, want unknown, after_check, [get_ticket]", text, s.Outcome.State, s.Retry.Kind, s.Next.Tools)
		}
	}
}

// TestCommittedPurchase: a purchase or a release stated done is a commit.
func TestCommittedPurchase(t *testing.T) {
	ctx := Context{Current: Tool{Name: "create_shipment"}, Tools: []Tool{{Name: "create_shipment"}, {Name: "get_shipment"}}}
	for _, text := range []string{
		"The label was bought (the carrier has billed for it), but our copy of the response was cut short.",
		"Version 2.4.1 was published; the changelog could not be generated.",
	} {
		if got := Read(Reply{Channel: ToolError, Text: text}, ctx).Outcome.State; got != OutcomeCommitted {
			t.Errorf("%q: outcome %q, want committed", text, got)
		}
	}
}

// TestCommittedPresentState: a state only a done write leaves, said in
// the present, is a commit; the object of the tool said to exist is
// Exists.
func TestCommittedPresentState(t *testing.T) {
	ctx := Context{Current: Tool{Name: "create_bucket"}, Tools: []Tool{{Name: "create_bucket"}, {Name: "get_bucket"}}}
	for _, tc := range []struct {
		text   string
		state  OutcomeState
		exists bool
	}{
		{"The registration is done already, only the confirmation answer got lost.", OutcomeCommitted, false},
		{"Article art-3391 went live on the web and in the app feed.", OutcomeCommitted, false},
		{"Your edit has gone in, so there's nothing to redo.", OutcomeCommitted, false},
		{"i pulled it back with get_bucket and it's in: LN-2024-0381.", OutcomeCommitted, false},
		{"The write timed out but it landed - get_bucket shows the entry.", OutcomeCommitted, false},
		{"It's booked on LH8402, status KK.", OutcomeCommitted, false},
		{"published PL-0614 items=48/48, first ack lost", OutcomeCommitted, false},
		{"Published versions are immutable, so publishing it again will be refused.", "", false},
		{"The file is in the upload folder but it was not processed.", OutcomeNotCommitted, false},
		{"So the bucket exists, it is ours, and versioning is on.", "", true},
		{"The campaign never went out.", OutcomeNotCommitted, false},
		{"BUCKET CREATED - ACKNOWLEDGEMENT LOST", OutcomeCommitted, false},
		{"Was it created? We don't know, and neither does the cloud API yet.", OutcomeUnknown, false},
		{"If the bucket exists, call get_bucket.", "", false},
	} {
		o := Read(Reply{Channel: ToolError, Text: tc.text}, ctx).Outcome
		if o.State != tc.state || o.Exists != tc.exists {
			t.Errorf("%q: outcome %q exists %v, want %q %v", tc.text, o.State, o.Exists, tc.state, tc.exists)
		}
	}
}

// TestStructuredPartCounts: counts of what was done and what failed, both
// above zero, state a write part by part.
func TestStructuredPartCounts(t *testing.T) {
	ctx := Context{Current: Tool{Name: "remove_bottles"}}
	for _, tc := range []struct {
		text    string
		partial bool
	}{
		{"remove_bottles id=B-1140 qty=6 removed=4 failed=2 reason=slot_sensor_mismatch", true},
		{`{"error": "some edits failed", "edits_applied": 1, "edits_failed": 1}`, true},
		{"remove_bottles id=B-1140 qty=6 removed=0 failed=6 reason=slot_sensor_mismatch", false},
	} {
		o := Read(Reply{Channel: ToolError, Text: tc.text}, ctx).Outcome
		if got := o.State == OutcomeUnknown && o.Partial; got != tc.partial {
			t.Errorf("%s: outcome %+v, want partial %v", tc.text, o, tc.partial)
		}
	}
}

// TestOutcomePartDoneBesideNotDone: a part stated done in any participle,
// beside a part stated not done, marks the outcome Partial; a request's
// reception or a failure word beside a denial does not. That the
// upstream's answer did not arrive states nothing about the write, and a
// state key's doubt is unknown.
func TestOutcomePartDoneBesideNotDone(t *testing.T) {
	ctx := Context{Current: Tool{Name: "move_crates"}, Tools: []Tool{{Name: "move_crates"}}}
	for _, tc := range []struct {
		text    string
		want    OutcomeState
		partial bool
	}{
		{"Crates C-1 and C-2 were palletised at bay 3; C-3 was not moved.", OutcomeNotCommitted, true},
		{"The coats have been cleaned. The hats were not moved.", OutcomeNotCommitted, true},
		{"The request was received, but the crates were not moved.", OutcomeNotCommitted, false},
		{"The move was interrupted and the crates were not moved.", OutcomeNotCommitted, false},
		{"The crates were not moved because bay 3 is closed.", OutcomeNotCommitted, false},
		{"The confirmation never reached us.", OutcomeNone, false},
		{"The crates never reached the bay.", OutcomeNotCommitted, false},
		{"move_crates ref=F-2 state_F-2=unknown", OutcomeUnknown, false},
	} {
		o := Read(Reply{Channel: ToolError, Text: tc.text}, ctx).Outcome
		if o.State != tc.want || o.Partial != tc.partial {
			t.Errorf("%q: outcome %+v, want %q with partial %v", tc.text, o, tc.want, tc.partial)
		}
	}
}
