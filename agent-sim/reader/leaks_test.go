package reader

import (
	"slices"
	"testing"
)

// leakKindsOf reads text on ch in ctx and returns the leak kinds found,
// sorted, each once.
func leakKindsOf(text string, ch Channel, ctx Context) []string {
	var kinds []string
	for _, l := range Read(Reply{Channel: ch, Text: text}, ctx).Leaks {
		if !slices.Contains(kinds, l.Kind) {
			kinds = append(kinds, l.Kind)
		}
	}
	slices.Sort(kinds)
	return kinds
}

// TestLeakShapes: each class of leak the reader knows, in a failure, and
// the look-alike of that class that must not be a candidate.
func TestLeakShapes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		kinds      []string
	}{
		{"mysql error number and sqlstate", "Error 1213 (40001): Deadlock found when trying to get lock", []string{LeakSQLState}},
		{"sqlstate as a JSON key", `{"message":"pq: relation \"t\" does not exist","sqlstate":"42P01"}`, []string{LeakSQL, LeakSQLState}},
		{"sqlstate as a dict key", `DatabaseError({'sqlstate': '23505'})`, []string{LeakExceptionClass, LeakSQLState}},
		{"python class under a module path", "Original exception was: (psycopg2.errors.UniqueViolation) duplicate key", []string{LeakExceptionClass}},
		{"python private class", "<_InactiveRpcError of RPC that terminated with: status = StatusCode.UNAVAILABLE>", []string{LeakExceptionClass}},
		{"go package and name is not a class", "get order: context.DeadlineExceeded while waiting", nil},
		{".NET frame", "System.InvalidOperationException: Sequence contains no elements\n   at Shop.Api.Orders.Get(String id)",
			[]string{LeakExceptionClass, LeakStackTrace}},
		{".NET frame with its file", "   at Shop.Api.Orders.Get(String id) in /build/Shop/Orders.cs:line 57", []string{LeakFilePath, LeakStackTrace}},
		{"rust debug dump", `Os { code: 111, kind: ConnectionRefused, message: "Connection refused" }`, []string{LeakStructDump}},
		{"go pointer", "unexpected response &{Status:502 Body:0xc0001a2b40}", []string{LeakStructDump}},
		{"hresult is not a pointer", "print failed: HRESULT 0x80070005 (E_ACCESSDENIED)", nil},
		{"connection string password", "connect postgres://app:Tr0ub4dor-93@db.example.com:5432/shop: refused", []string{LeakHostPort, LeakSecret}},
		{"connection string placeholder", "DATABASE_URL is malformed: expected postgres://user:password@host/dbname", nil},
		{"connection string redacted", "connect postgres://app:****@db.example.com/shop: password authentication failed", nil},
		{"secret's name is not its value", "deploy: Secret: orders-db-credentials-v2 not found", nil},
		{"token value", "401: token: 9f2c1e7ab4d84e0fb1c3a6d5e8f70b21", []string{LeakSecret}},
		{"rust panic", "thread 'tokio-runtime-worker' panicked at 'called `Option::unwrap()` on a `None` value'", []string{LeakStackTrace}},
		{"node internal frame", "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)", []string{LeakStackTrace}},
		{"rust type path", "query failed: error returned from database: sqlx::Error::RowNotFound", []string{LeakExceptionClass}},
		{"method reference is not a type", "call Orders::create first", nil},
		{"npgsql sqlstate", "23505: duplicate key value violates unique constraint \"pk_orders\"", []string{LeakSQLState}},
		{"a count before a colon is not a sqlstate", "Found 23505: entries", nil},
		{"sqlite schema error", "sqlite3: no such table: invoices", []string{LeakSQL}},
		{"mysql unknown column", "Error 1054 (42S22): Unknown column 'emial' in 'where clause'", []string{LeakSQL, LeakSQLState}},
		{"stripe key", "charge failed for key sk_live_51HqLyjWDarjtT1zdp7dcXYZ", []string{LeakSecret}},
		{"basic auth header", "401 (sent Authorization: Basic YWRtaW46czNjcjN0UGFzcw==)", []string{LeakSecret}},
		{"empty user in a redis url", "dial redis://:Sup3rS3cret@cache.example.com:6379/0: timeout", []string{LeakHostPort, LeakSecret}},
		{"aws secret key env", "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE1 rejected", []string{LeakSecret}},
		{"pagination token is not a secret", "invalid page_token CiAKGjBpNDd2Nmp4Zm5vcjRsMzU4MGxi", nil},
		{"slack webhook", "post to https://hooks.slack.com/services/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 failed: 404", []string{LeakSecret}},
		{"route after a method", "GET /data/invoices/INV-204 returned 404 Not Found", nil},
		{"path of the server", "open /data/cache/index.db: permission denied", []string{LeakFilePath}},
	} {
		if got := leakKindsOf(tc.text, ToolError, shipCtx); !slices.Equal(got, tc.kinds) {
			t.Errorf("%s: %q: leak kinds %v, want %v", tc.name, tc.text, got, tc.kinds)
		}
	}
}

// TestLeaksOnSuccess: a success that reads as a failure (an error folded
// into a result) keeps its code candidates; a success that is the tool's
// answer keeps only addresses and secrets, which the judge anchors on
// facts.
func TestLeaksOnSuccess(t *testing.T) {
	for _, tc := range []struct {
		text  string
		kinds []string
	}{
		{"Error: Unexpected error occurred: ConnectError", []string{LeakExceptionClass}},
		{`{"error": "An error occurred (ConditionalCheckFailedException) when calling PutItem"}`, []string{LeakExceptionClass}},
		{"Job 12 failed. Last lines:\nTraceback (most recent call last):\n  File \"/home/ci/run.py\", line 3, in <module>\nValueError: bad header", nil},
		{"An error occurred (ThrottlingException) when calling the PutItem operation: Rate exceeded", []string{LeakExceptionClass}},
		{"Database error: no such table: orders", []string{LeakSQL}},
		{"Top statements:\n1. SELECT id FROM orders WHERE total > $1 — 812 ms", nil},
		{"internal/db/conn.go:88: db, err := sql.Open(\"pgx\", dsn)", nil},
		{"Replica 10.0.3.7:5432 lags 2 s; token: 9f2c1e7ab4d84e0fb1c3a6d5e8f70b21", []string{LeakHostPort, LeakIP, LeakSecret}},
	} {
		if got := leakKindsOf(tc.text, Success, shipCtx); !slices.Equal(got, tc.kinds) {
			t.Errorf("%q: leak kinds %v, want %v", tc.text, got, tc.kinds)
		}
	}
}

// TestDatabaseToolTakesSQL: a "query" argument is a statement when the
// tool is a database's, so a syntax error about it is the caller's own;
// a search tool's "query" is words, and SQL in its error is the server's.
func TestDatabaseToolTakesSQL(t *testing.T) {
	const text = `syntax error at or near "TABLEE"`
	for _, tc := range []struct {
		tool  Tool
		kinds []string
	}{
		{Tool{Name: "apply_migration", Params: []string{"project_id", "name", "query"}}, nil},
		{Tool{Name: "query_orders_db", Params: []string{"query"}}, nil},
		{Tool{Name: "search_issues", Params: []string{"query", "limit"}}, []string{LeakSQL}},
	} {
		if got := leakKindsOf(text, ToolError, Context{Current: tc.tool}); !slices.Equal(got, tc.kinds) {
			t.Errorf("%s: leak kinds %v, want %v", tc.tool.Name, got, tc.kinds)
		}
	}
}
