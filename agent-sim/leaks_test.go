package agentsim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFindLeaks(t *testing.T) {
	tests := []struct {
		name, text string
		want       []Leak
	}{
		{"go stack", "panic: runtime error: index out of range\n\ngoroutine 7 [running]:\nmain.handler()\n\t/src/app/main.go:42 +0x1d",
			[]Leak{{LeakStackTrace, "panic: runtime error: index out of range"}, {LeakStackTrace, "goroutine 7 [running]:"},
				{LeakStackTrace, "/src/app/main.go:42 +0x1d"}}},
		{"python", "Traceback (most recent call last):\n  File \"/app/server.py\", line 12, in handler\nKeyError: 'ledger_id'",
			[]Leak{{LeakStackTrace, "Traceback (most recent call last):"}, {LeakStackTrace, `File "/app/server.py", line 12`}, {LeakExceptionClass, "KeyError"}}},
		{"java", "java.lang.NullPointerException\n\tat com.acme.Ship.create(Ship.java:42)",
			[]Leak{{LeakExceptionClass, "java.lang.NullPointerException"}, {LeakStackTrace, "at com.acme.Ship.create(Ship.java:42)"}}},
		{"js", "TypeError: x is undefined\n    at Object.<anonymous> (/app/index.js:10:5)",
			[]Leak{{LeakExceptionClass, "TypeError"}, {LeakStackTrace, "at Object.<anonymous> (/app/index.js:10:5)"}}},
		{"host port", `Post "http://10.0.3.7:9000/shipments": dial tcp 10.0.3.7:9000: connection refused`,
			[]Leak{{LeakHostPort, "10.0.3.7:9000"}}},
		{"internal host", "could not reach carrier-api.prod.svc.cluster.local", []Leak{{LeakInternalHost, "carrier-api.prod.svc.cluster.local"}}},
		{"internal host with port", "db.internal:5432 refused", []Leak{{LeakHostPort, "db.internal:5432"}}},
		{"localhost", "upstream localhost unavailable", []Leak{{LeakInternalHost, "localhost"}}},
		{"ipv4", "from 192.168.1.20", []Leak{{LeakIP, "192.168.1.20"}}},
		{"ipv6", "from fe80::1 and [::1]:8080", []Leak{{LeakIP, "fe80::1"}, {LeakHostPort, "[::1]:8080"}}},
		{"sql", `pq: duplicate key value violates unique constraint "shipments_pkey"`,
			[]Leak{{LeakSQL, `pq: duplicate key value violates unique constraint "shipments_pkey"`}}},
		{"sql statement", "query failed: SELECT id, status FROM shipments WHERE order_id = $1",
			[]Leak{{LeakSQL, "SELECT id, status FROM shipments"}, {LeakSQL, "WHERE order_id ="}}},
		{"sqlstate", "insert failed (SQLSTATE 23505)", []Leak{{LeakSQLState, "SQLSTATE 23505"}}},
		{"unix path", "open /var/lib/app/config.yaml: permission denied", []Leak{{LeakFilePath, "/var/lib/app/config.yaml"}}},
		{"windows path", `C:\inetpub\app\web.config missing`, []Leak{{LeakFilePath, `C:\inetpub\app\web.config`}}},
		{"source location", "error at handler.go:42", []Leak{{LeakFilePath, "handler.go:42"}}},
		{"struct dump", "got &{ID:7 Status:new} at 0xc000123456", []Leak{{LeakStructDump, "&{"}, {LeakStructDump, "0xc000123456"}}},
		{"go syntax dump", "bad main.Shipment{ID:7}", []Leak{{LeakStructDump, "main.Shipment{ID:"}}},
		{"exception", "ConnectionError while posting", []Leak{{LeakExceptionClass, "ConnectionError"}}},
		{"openai key", "key sk-abcdefghijklmnop1234 rejected", []Leak{{LeakSecret, "sk-abcdefghijklmnop1234"}}},
		{"aws key", "AKIAABCDEFGHIJKLMNOP", []Leak{{LeakSecret, "AKIAABCDEFGHIJKLMNOP"}}},
		{"token value", "token=9f8e7d6c5b4a39281706f5e4", []Leak{{LeakSecret, "9f8e7d6c5b4a39281706f5e4"}}},
		{"password", "password=hunter2", []Leak{{LeakSecret, "hunter2"}}},
		// False positives the heuristics must not report.
		{"public url", "See https://docs.example.com/errors/E42 for details.", nil},
		{"clock", "Meeting at 12:30:45.", nil},
		{"cpp scope", "std::abs and Class::add", nil},
		{"ratio", "ratio 1.5:10", nil},
		{"version", "requires v1.2.3.4", nil},
		{"not an ip", "999.1.1.1", nil},
		{"token word", "token: INVALID_OR_EXPIRED_TOKEN", nil},
		{"password rule", "password: must be longer", nil},
		{"lowercase select", "select a date from the list", nil},
		{"http path", "POST /shipments returned 409", nil},
		{"error word", "Error: the carrier refused.", nil},
		{"idempotency key", "idempotency_key: order-A-1001", nil},
		{"careful message", carefulUnknown, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, findLeaks(tt.text)); diff != "" {
				t.Errorf("leaks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindLeaksBounded(t *testing.T) {
	text := ""
	for i := range 100 {
		text += "10.0.0." + string(rune('0'+i%10)) + " "
	}
	leaks := findLeaks(text + "x" + string(make([]byte, 300)))
	if len(leaks) > maxLeaks {
		t.Errorf("%d leaks, want at most %d", len(leaks), maxLeaks)
	}
	long := findLeaks("at /home/" + string(make([]byte, 0)) + "u/" + stringOf('a', 400))
	if len(long) != 1 || len(long[0].Text) > maxLeakText {
		t.Errorf("long leak not clipped: %+v", long)
	}
}

func stringOf(c byte, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return string(b)
}
