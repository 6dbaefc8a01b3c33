package transcript_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// FuzzReplySignalsJSON: reading signals back from any JSON never panics,
// and what it accepts writes out again.
func FuzzReplySignalsJSON(f *testing.F) {
	c := transcript.Call{Tool: "create_shipment", Channel: transcript.ChannelToolError, Text: simtest.CarefulUnknown}
	c.SetSignals(simtest.ShippingTools)
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
		var s transcript.ReplySignals
		if json.Unmarshal(b, &s) != nil {
			return
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("accepted %q but cannot write it: %v", b, err)
		}
	})
}
