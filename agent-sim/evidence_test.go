package agentsim

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpchaos/mcpchaos/inject"
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
	} {
		if diff := cmp.Diff(tc.want, internalIn(tc.text, values)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.text, diff)
		}
	}
}

// TestRunInternal: the run's internal values are each upstream's real
// target and proxy address, and the resolved env values given to the
// server.
func TestRunInternal(t *testing.T) {
	sc := &Scenario{Server: ServerSpec{Env: map[string]string{"LEDGER_URL": `{{ upstream "ledger" }}`, "MODE": "production"}}}
	ups := []inject.UpstreamInfo{{Name: "ledger", Protocol: "http", Listen: "127.0.0.1:41234", Target: "ledger.internal:8443"}}
	got := runInternal(sc, ups, "")
	want := []string{"ledger.internal:8443", "127.0.0.1:41234", "http://127.0.0.1:41234", "production"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run internal values (-want +got):\n%s", diff)
	}
}

// FuzzReplySignalsJSON: reading signals back from any JSON never panics,
// and what it accepts writes out again.
func FuzzReplySignalsJSON(f *testing.F) {
	c := CallRecord{Tool: "create_shipment", Channel: ChannelToolError, Text: carefulUnknown}
	c.setSignals(shippingTools)
	seed, err := json.Marshal(c.Signals)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"read":true,"retry":{"kind":"bounded","limit":1,"confidence":"tentative"}}`))
	f.Add([]byte(`{"next":{"confidence":7}}`))
	f.Add([]byte(`[[[[[[[[[[{"confidence":"x"}]]]]]]]]]]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		var s ReplySignals
		if json.Unmarshal(b, &s) != nil {
			return
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("accepted %q but cannot write it: %v", b, err)
		}
	})
}
