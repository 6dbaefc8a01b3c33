package reader

import (
	"testing"
	"unicode/utf8"
)

// FuzzRead: Read never panics on any text or structuredContent, and its
// output stays bounded: quotes, leaks, tools and arguments are capped,
// and every quote is valid UTF-8.
func FuzzRead(f *testing.F) {
	seeds := []string{
		"Outcome unknown: the ledger took the charge but its reply never arrived. Look it up with list_charges",
		"… do not call charge_card again until you have checked",
		"The charge may or may not have been made — check list_charges before retrying.",
		"create annotation: [POST /annotations][500] postAnnotationInternalServerError",
		"list datasources: [GET /datasources][401] {\"message\":\"invalid API key\"}",
		"PATCH https://k8s/apis?fieldManager=x&force=true: 422",
		"Failed to fetch https://api.example.com/v1/items?limit=50&page=1&query=demo: ConnectTimeout('timed out')",
		"safe to retry in 30 seconds; if that also fails, tell the user",
		`{"retryable":false,"outcome":"unknown","next_action":{"tool":"find_shipments"}}`,
		"Whether the shipment exists is not known yet.",
		"Resolved api.example.com to 93.184.216.34",
		"SELECT id, email FROM users WHERE id = 1",
		"order 10.2.3.4-A",
		"HTTP 503", "EOF",
		"Die Sendung wurde angelegt.", "出荷が作成されたかどうかは不明です。",
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
		"\xff\xfe retry once \xc3",
		"## Deploy blocked\n- **Do not** retry: *pointless*\n1. Check `list_charges` first\n> may have",
		"Error code: 429 - {'error': {'message': 'Please try again in 12.26s.', 'param': None}}",
		"Had the carrier accepted it, you would see a number. It didn't: retrying: pointless, as long as",
		"title: required\nretryable=false retry_after=45 — if it isn't, sending it again is fine",
		"hint: Updates were rejected because the remote contains work that you do\nhint: not have locally. Use\nhint: 'git pull' before pushing again.\n\"",
		`webhook "a.sh" denied the request: set "b" first; "unterminated`,
		"npm error Fix the conflict, or retry this command with --force\nnpm error\nnpm error /home/dev/.npm/_logs/x.log",
		"Please resolve the issue above and try\nagain. If you are sure you want to delete it, run 'git branch -D x'",
		"Empty it with delete_objects first, then run create_shipment again; only after they approve, call it again",
		"Unknown carrier 'fedx'. Did you mean 'fedex'? No branch provided. A maximum of 50 items.",
		"Scaling completed only in part: 4 of 6 instances started, the rest were not. sent: no",
		"429 Too Many Requests (OVER_QUERY_LIMIT). You may need to wait a minute before retrying.",
		"Closed shipments cannot be created; do not start another shipment until step 1 is done.",
		"If they agree, call create_shipment again with overwrite: true. There is no flag to skip this protection.",
		// Upper-case letters whose lower case is longer ("İ"): offsets
		// into the lowered text must still index the original.
		"Aİ", "create İİİİ item: lookup İstanbul: İ was not created: do not retry",
		"level=error retryable=false hint=\"ask the user\"", "Could not find:\n    x := f(); // retry once\n```\nretry\n```",
	}
	for i, s := range seeds {
		f.Add(s, []byte(nil), uint8(i%3))
	}
	f.Add("", []byte(`{"error":{"retryable":true,"retry_after":"30s","errors":[{"field":"order_id"}]}}`), uint8(1))
	f.Fuzz(func(t *testing.T, text string, structured []byte, ch uint8) {
		r := Reply{Channel: []Channel{Success, ToolError, ProtocolError}[ch%3], Text: text, Structured: structured}
		s := Read(r, shipCtx)
		quotes := []Source{s.Retry.Source, s.Outcome.Source, s.Next.Source, s.User.Source, s.Unsafe.Source, s.Upstream.Source}
		for _, a := range s.Args {
			quotes = append(quotes, a.Source)
		}
		for _, q := range quotes {
			if len(q.Quote) > maxQuote+len("…") || !utf8.ValidString(q.Quote) {
				t.Fatalf("quote not bounded or not UTF-8: %q", q.Quote)
			}
		}
		if len(s.Leaks) > maxLeaks || len(s.Args) > maxArgs || len(s.Next.Tools) > maxTools {
			t.Fatalf("unbounded output: %d leaks, %d args, %d tools", len(s.Leaks), len(s.Args), len(s.Next.Tools))
		}
		for _, l := range s.Leaks {
			if len(l.Text) > maxLeakText || !utf8.ValidString(l.Text) {
				t.Fatalf("leak text not bounded or not UTF-8: %q", l.Text)
			}
		}
		if s.Retry.Kind == RetryBounded && (s.Retry.Limit < 1 || s.Retry.Limit > 100) {
			t.Fatalf("retry limit %d out of [1, 100]", s.Retry.Limit)
		}
		if !s.Read && (s.Retry.Kind != "" || s.Outcome.State != "" || len(s.Next.Tools) > 0 || s.User.Set || len(s.Args) > 0 || s.Unsafe.Set) {
			t.Fatalf("unread reply carries a text signal: %+v", s)
		}
	})
}
