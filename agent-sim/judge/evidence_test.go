package judge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInternalValues(t *testing.T) {
	got := internalValues([]string{"http://ledger.internal:8443/v1", "127.0.0.1:41234", "10.0.3.7:5432",
		"production", "300000", "eu1", "s3cr3t-Token", "http://127.0.0.1:9/x"})
	want := []string{"http://ledger.internal:8443/v1", "ledger.internal:8443", "ledger.internal", "127.0.0.1:41234",
		"10.0.3.7:5432", "10.0.3.7", "s3cr3t-Token", "http://127.0.0.1:9/x", "127.0.0.1:9"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("internal values (-want +got):\n%s", diff)
	}
}

func TestInternalIn(t *testing.T) {
	values := internalValues([]string{"http://ledger.internal:8443/v1", "10.0.3.7"})
	for _, tc := range []struct {
		text string
		want []string
	}{
		{`Post "http://ledger.internal:8443/v1/charges": EOF`, []string{"http://ledger.internal:8443/v1"}},
		{`dial ledger.internal:8443: refused`, []string{"ledger.internal:8443"}},
		{"dial tcp 10.0.3.7:5432: refused", []string{"10.0.3.7"}},
		{"order 10.0.3.70 shipped", nil},
		{"order 10.0.3.7-A shipped", nil},
		{"see ledger.internal.", []string{"ledger.internal"}},
		{"see ledger.internal.example.com", nil},
		{"nothing here", nil},
		// The host and port apart, as urllib3 prints a pool.
		{"HTTPSConnectionPool(host='ledger.internal', port=8443): Read timed out.", []string{"ledger.internal:8443"}},
		{"host: ledger.internal, port: 84430", []string{"ledger.internal"}},
	} {
		if diff := cmp.Diff(tc.want, internalIn(tc.text, values)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.text, diff)
		}
	}
}
