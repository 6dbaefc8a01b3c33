package reader

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLogfmt(t *testing.T) {
	tests := []struct {
		name string
		text string
		want map[string]any // nil: not logfmt
	}{
		{"a slog line", `level=error code=UNBAN_DENIED retryable=false hint="ask the user to \"appeal\""`,
			map[string]any{"level": "error", "code": "UNBAN_DENIED", "retryable": false, "hint": `ask the user to "appeal"`}},
		{"pairs inside prose, trailing colon dropped", "void FAILED code=LINK_DOWN payment=P-1 outcome=NOT_SENT: the void never left",
			map[string]any{"code": "LINK_DOWN", "payment": "P-1", "outcome": "NOT_SENT"}},
		{"numbers", "status=429 retry_after=30 op=charge", map[string]any{"status": json.Number("429"), "retry_after": json.Number("30"), "op": "charge"}},
		{"first value of a key wins", "a=1 a=2 b=x c=y", map[string]any{"a": json.Number("1"), "b": "x", "c": "y"}},
		{"two pairs are not a log line", "limit=50 page=1 is too many", nil},
		{"a query string is one token", "GET /items?limit=50&page=1&query=demo failed", nil},
		{"an unterminated quote ends the line's pairs", `a=1 b=2 msg="never closed`, nil},
		{"prose", "The charge may or may not have been made.", nil},
		{"a key must start a word", "x==1 y= 2 =z w=3", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseLogfmt(tt.text)
			if ok != (tt.want != nil) {
				t.Fatalf("parseLogfmt(%q) ok = %v, want %v (%v)", tt.text, ok, tt.want != nil, got)
			}
			if diff := cmp.Diff(tt.want, got); ok && diff != "" {
				t.Errorf("parseLogfmt(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// A logfmt error is read as a structured one; its quoted msg and hint are
// the server's words, read by the English reader.
func TestReadLogfmt(t *testing.T) {
	ctx := Context{Current: Tool{Name: "unban_player", Params: []string{"ban_id"}},
		Tools: []Tool{{Name: "unban_player"}, {Name: "list_bans"}}}
	s := Read(Reply{Channel: ToolError, Text: `level=error code=DENIED ban_id=B-1 retryable=false hint="ask the user to file an appeal"`}, ctx)
	if s.Retry.Kind != DoNotRetry || s.Retry.Source.Kind != FromStructured {
		t.Errorf("retry = %+v, want do_not_retry from the structured reader", s.Retry)
	}
	if !s.User.Set {
		t.Error("the hint's instruction to ask the user was not read")
	}
	if len(s.Args) != 0 {
		t.Errorf("args = %v: a log line's pairs restate the request, they ask for no argument", s.Args)
	}
	// On a success the pairs are the tool's data.
	if s := Read(Reply{Channel: Success, Text: `level=info retryable=false hint="ask the user"`}, ctx); s.Retry.Kind != RetryNone || s.User.Set {
		t.Errorf("a success's log line was read as guidance: %+v", s)
	}
}

func FuzzParseLogfmt(f *testing.F) {
	for _, s := range []string{`level=error retryable=false hint="a \"b\""`, "a=1 b=2 c=3", `x="`, "a=b=c d= e=f g=h", "=\n=\n="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, ok := parseLogfmt(text)
		if ok && (len(m) == 0 || len(m) > maxPairs) {
			t.Fatalf("parseLogfmt(%q) kept %d pairs", text, len(m))
		}
	})
}
