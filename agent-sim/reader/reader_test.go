package reader

import (
	"slices"
	"strings"
	"testing"
)

var (
	chargeTools = []Tool{
		{Name: "charge_card", Params: []string{"amount", "currency", "customer_id", "idempotency_key"}},
		{Name: "list_charges"}, {Name: "get_charge"},
	}
	chargeCtx = Context{Tools: chargeTools, Current: chargeTools[0]}
	shipTools = []Tool{
		{Name: "create_shipment", Params: []string{"order_id", "address", "carrier"}},
		{Name: "find_shipments"}, {Name: "get_shipment"},
	}
	shipCtx  = Context{Tools: shipTools, Current: shipTools[0]}
	fetchCtx = Context{Tools: []Tool{{Name: "fetch", Params: []string{"url", "limit", "page", "query"}}},
		Current: Tool{Name: "fetch", Params: []string{"url", "limit", "page", "query"}}}
	grafanaCtx = Context{Tools: []Tool{{Name: "create_annotation"}, {Name: "list_datasources"}},
		Current: Tool{Name: "create_annotation", Params: []string{"text", "tags", "time"}}}
)

// want is what a test expects of Signals; zero fields expect "none".
type want struct {
	unread  bool
	retry   RetryKind
	limit   int
	outcome OutcomeState
	next    []string
	user    bool
	args    []string // names
	unsafe  bool
}

func check(t *testing.T, got Signals, w want) {
	t.Helper()
	if got.Read == w.unread {
		t.Errorf("Read = %v, want %v", got.Read, !w.unread)
	}
	if got.Retry.Kind != w.retry || got.Retry.Limit != w.limit {
		t.Errorf("Retry = %q/%d, want %q/%d (source %q)", got.Retry.Kind, got.Retry.Limit, w.retry, w.limit, got.Retry.Source.Quote)
	}
	if got.Outcome.State != w.outcome {
		t.Errorf("Outcome = %q, want %q (source %q)", got.Outcome.State, w.outcome, got.Outcome.Source.Quote)
	}
	if !slices.Equal(got.Next.Tools, w.next) {
		t.Errorf("Next = %v, want %v", got.Next.Tools, w.next)
	}
	if got.User.Set != w.user {
		t.Errorf("User = %v, want %v (source %q)", got.User.Set, w.user, got.User.Source.Quote)
	}
	var names []string
	for _, a := range got.Args {
		names = append(names, a.Name)
	}
	if !slices.Equal(names, w.args) {
		t.Errorf("Args = %v, want %v", names, w.args)
	}
	if got.Unsafe.Set != w.unsafe {
		t.Errorf("Unsafe = %v, want %v (source %q)", got.Unsafe.Set, w.unsafe, got.Unsafe.Source.Quote)
	}
}

// TestReadIssueExamples: every reply issue 15 quotes as misread.
func TestReadIssueExamples(t *testing.T) {
	tests := []struct {
		name string
		r    Reply
		ctx  Context
		want want
	}{
		{"outcome unknown look it up",
			Reply{Channel: ToolError, Text: "Outcome unknown: the ledger took the charge but its reply never arrived. Look it up with list_charges."},
			chargeCtx, want{outcome: OutcomeUnknown, next: []string{"list_charges"}}},
		{"do not call again until checked",
			Reply{Channel: ToolError, Text: "The processor stopped answering, so the charge may have gone through. Look for it with list_charges; do not call charge_card again until you have checked."},
			chargeCtx, want{retry: RetryAfterCheck, outcome: OutcomeUnknown, next: []string{"list_charges"}}},
		{"may or may not, check before retrying",
			Reply{Channel: ToolError, Text: "The charge may or may not have been made — check list_charges before retrying."},
			chargeCtx, want{retry: RetryAfterCheck, outcome: OutcomeUnknown, next: []string{"list_charges"}}},
		{"go wrapping prefix is not an instruction",
			Reply{Channel: ToolError, Text: `create annotation: [POST /annotations][500] postAnnotationInternalServerError  {"message":"Failed to save annotation"}`},
			grafanaCtx, want{}},
		{"lower-case guidance before a colon is kept",
			Reply{Channel: ToolError, Text: "do not retry: the card was declined"},
			chargeCtx, want{retry: DoNotRetry, outcome: OutcomeNotCommitted}},
		{"cannot be retried", Reply{Channel: ToolError, Text: "This operation cannot be retried."}, shipCtx, want{retry: DoNotRetry}},
		{"may still have completed", Reply{Channel: ToolError, Text: "The request timed out; the shipment may still have been created."},
			shipCtx, want{outcome: OutcomeUnknown}},
		{"rolled back", Reply{Channel: ToolError, Text: "The transaction was rolled back."}, shipCtx, want{outcome: OutcomeNotCommitted}},
		{"list datasources prefix",
			Reply{Channel: ToolError, Text: `list datasources: [GET /datasources][401] getDataSourcesUnauthorized  {"message":"invalid API key"}`},
			grafanaCtx, want{}},
		{"force in a quoted URL",
			Reply{Channel: ToolError, Text: "PATCH https://10.96.0.1:443/apis/apps/v1/namespaces/demo/deployments/web?fieldManager=x&force=true failed: connection refused"},
			Context{Current: Tool{Name: "apply", Params: []string{"manifest", "force"}}}, want{}},
		{"query string is not arguments",
			Reply{Channel: ToolError, Text: "Failed to fetch https://api.example.com/v1/items?limit=50&page=1&query=demo: ConnectTimeout('timed out')"},
			fetchCtx, want{}},
		{"delay without count then user",
			Reply{Channel: ToolError, Text: "The search API is rate-limited right now. It is safe to retry in 30 seconds; if that also fails, tell the user."},
			shipCtx, want{retry: RetryBounded, limit: 1, user: true}},
		{"structured JSON in text",
			Reply{Channel: ToolError, Text: `{"retryable":false,"outcome":"unknown","next_action":{"tool":"find_shipments"}}`},
			shipCtx, want{retry: DoNotRetry, outcome: OutcomeUnknown, next: []string{"find_shipments"}}},
		{"structured JSON in structuredContent",
			Reply{Channel: ToolError, Text: "error", Structured: []byte(`{"retryable":false,"outcome":"unknown","next_action":{"tool":"find_shipments"}}`)},
			shipCtx, want{retry: DoNotRetry, outcome: OutcomeUnknown, next: []string{"find_shipments"}}},
		{"whether not known yet",
			Reply{Channel: ToolError, Text: "Whether the shipment exists is not known yet."},
			shipCtx, want{outcome: OutcomeUnknown}},
		{"german", Reply{Channel: ToolError, Text: "Die Sendung konnte nicht angelegt werden. Ob die Sendung trotzdem angelegt wurde, ist unbekannt. Bitte nicht erneut versuchen."},
			shipCtx, want{unread: true}},
		{"french", Reply{Channel: ToolError, Text: "Le paiement a été refusé par la banque. Aucun montant n'a été débité. Inutile de réessayer ; demandez à l'utilisateur un autre moyen de paiement."},
			chargeCtx, want{unread: true}},
		{"japanese", Reply{Channel: ToolError, Text: "配送業者からの応答がタイムアウトしました。出荷が作成されたかどうかは不明です。"},
			shipCtx, want{unread: true}},
		{"unknown JSON structure", Reply{Channel: ToolError, Text: `{"a":1,"b":[2,3]}`}, shipCtx, want{unread: true}},
		{"not transient", Reply{Channel: ToolError, Text: "This is not a transient error. Retrying will not help."},
			shipCtx, want{retry: DoNotRetry}},
		{"retry once then stop", Reply{Channel: ToolError, Text: "Retry once; if it fails again, do not retry."},
			shipCtx, want{retry: RetryBounded, limit: 1}},
		{"force invitation", Reply{Channel: ToolError, Text: "Shipment already exists. Retry with force: true to overwrite it."},
			Context{Tools: shipTools, Current: Tool{Name: "create_shipment", Params: []string{"order_id", "force"}}},
			want{args: []string{"force"}, unsafe: true}},
		{"never force", Reply{Channel: ToolError, Text: "Never set force=true to get around this."},
			Context{Tools: shipTools, Current: Tool{Name: "create_shipment", Params: []string{"order_id", "force"}}}, want{}},
		{"permanent then try again", Reply{Channel: ToolError, Text: "This failure is permanent. Try again later."},
			shipCtx, want{retry: RetryUnbounded, unsafe: true}},
		{"success carries no guidance", Reply{Channel: Success, Text: "payments-api: degraded (last probe got HTTP 503). Try again later."},
			shipCtx, want{}},
		{"argument named", Reply{Channel: ToolError, Text: "carrier must be one of ups, dhl or fedex; correct the carrier argument and call again."},
			shipCtx, want{args: []string{"carrier"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, Read(tt.r, tt.ctx), tt.want)
		})
	}
}

// TestSources: every set signal carries a source and a confidence.
func TestSources(t *testing.T) {
	s := Read(Reply{Channel: ToolError, Text: "The charge may or may not have been made. Do not retry charge_card yet: call list_charges, then tell the user."}, chargeCtx)
	for name, ev := range map[string]Evidence{"retry": s.Retry.Evidence, "outcome": s.Outcome.Evidence, "next": s.Next.Evidence, "user": s.User.Evidence} {
		if ev.Source.Kind != FromSentence || ev.Source.Quote == "" || ev.Confidence == 0 {
			t.Errorf("%s: evidence %+v, want a sentence source with a confidence", name, ev)
		}
	}
	st := Read(Reply{Channel: ToolError, Structured: []byte(`{"error":{"code":"X","message":"Do not retry.","retryable":false}}`)}, chargeCtx)
	if st.Retry.Kind != DoNotRetry || st.Retry.Source.Kind != FromStructured || st.Retry.Confidence != Confident ||
		!strings.Contains(st.Retry.Source.Quote, "retryable") {
		t.Errorf("structured retry = %+v, want do_not_retry from the retryable field", st.Retry)
	}
}

// TestChain: a later reader's confident signal replaces a tentative one,
// and an extra reader can read what the built-in ones cannot.
func TestChain(t *testing.T) {
	de := ReaderFunc(func(r Reply, _ Context) Signals {
		if !strings.Contains(r.Text, "nicht erneut versuchen") {
			return Signals{}
		}
		return Signals{Read: true, Retry: Retry{Kind: DoNotRetry, Evidence: Evidence{Source: Source{Kind: FromSentence, Quote: r.Text}, Confidence: Confident}}}
	})
	r := Reply{Channel: ToolError, Text: "Die Rechnung wurde nicht gefunden. Bitte nicht erneut versuchen."}
	if got := Read(r, chargeCtx); got.Read {
		t.Fatalf("default reader read German: %+v", got)
	}
	got := New(Options{Extra: []Reader{de}}).Read(r, chargeCtx)
	if !got.Read || got.Retry.Kind != DoNotRetry {
		t.Errorf("with a German reader: %+v, want read and do_not_retry", got)
	}
	tent := ReaderFunc(func(Reply, Context) Signals {
		return Signals{Read: true, Retry: Retry{Kind: RetryUnbounded, Evidence: Evidence{Confidence: Tentative}}}
	})
	conf := ReaderFunc(func(Reply, Context) Signals {
		return Signals{Read: true, Retry: Retry{Kind: DoNotRetry, Evidence: Evidence{Confidence: Confident}}}
	})
	if got := Chain(tent, conf).Read(r, chargeCtx); got.Retry.Kind != DoNotRetry {
		t.Errorf("Chain kept %q, want the confident do_not_retry", got.Retry.Kind)
	}
	if got := Chain(conf, tent).Read(r, chargeCtx); got.Retry.Kind != DoNotRetry {
		t.Errorf("Chain let a tentative signal replace a confident one: %q", got.Retry.Kind)
	}
}

// TestLeakCandidates: candidates carry their kind; look-alikes the issue
// names are not candidates.
func TestLeakCandidates(t *testing.T) {
	tests := []struct {
		text  string
		kinds []string
	}{
		{"dial tcp 10.0.4.12:5432: connect: connection refused", []string{LeakHostPort, LeakIP}},
		{"No order 10.2.3.4-A is open.", nil},
		{"Transaction{Hash: 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060}", nil},
		{"pq: relation \"users\" does not exist (SQLSTATE 42P01)", []string{LeakSQL, LeakSQLState}},
		{"java.lang.NullPointerException\n\tat com.acme.Api.handle(Api.java:41)", []string{LeakExceptionClass, LeakStackTrace, LeakFilePath}},
	}
	for _, tt := range tests {
		s := Read(Reply{Channel: ToolError, Text: tt.text}, shipCtx)
		var kinds []string
		for _, l := range s.Leaks {
			if !slices.Contains(kinds, l.Kind) {
				kinds = append(kinds, l.Kind)
			}
		}
		slices.Sort(kinds)
		want := slices.Clone(tt.kinds)
		slices.Sort(want)
		if !slices.Equal(kinds, want) {
			t.Errorf("%q: leak kinds %v, want %v", tt.text, kinds, want)
		}
	}
}
