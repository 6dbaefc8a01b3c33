package inject

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpchaos/mcpchaos/rules"
)

// FuzzParseFault: whatever a config file or an API call sends, ParseFault
// returns a fault of the requested kind or a *rules.FieldError naming a
// fault field; it never panics. A parsed latency can always compute a
// wait.
func FuzzParseFault(f *testing.F) {
	seeds := []struct{ kind, params string }{
		{"latency", `{"delay":"250ms","jitter":"50ms","direction":"both"}`},
		{"latency", `{"delay":"2000000h","jitter":"2000000h"}`},
		{"timeout", `{"close_after":"1s"}`},
		{"timeout", `{"close_after":"876000h","direction":""}`},
		{"http_error", `{"status":101}`},
		{"bandwidth", `{"rate":0,"direction":"both"}`},
		{"unreachable", `{"mode":"blackhole"}`},
		{"partial_write", `{"bytes":10,"direction":"request","then":"close"}`},
		{"response_lost", `{"mode":"reset"}`},
		{"http_error", `{"status":429,"headers":{"Retry-After":"2"},"body":"slow down"}`},
		{"reset", `{"bytes":-1}`},
		{"bandwidth", `{"rate":1e30}`},
		{"meteor", `{}`},
		{"latency", `{"delay":5}`},
		{"latency", `{"delay":null}`},
		{"timeout", `{"direction":["a"]}`},
	}
	for _, s := range seeds {
		f.Add(s.kind, s.params)
	}
	f.Fuzz(func(t *testing.T, kind, params string) {
		var p map[string]any
		if json.Unmarshal([]byte(params), &p) != nil {
			return
		}
		got, err := ParseFault(rules.FaultSpec{Kind: kind, Params: p})
		if err != nil {
			var fe *rules.FieldError
			if !errors.As(err, &fe) || len(fe.Field) < 5 || fe.Field[:5] != "fault" {
				t.Fatalf("error %v is not a FieldError on a fault field", err)
			}
			return
		}
		fl, ok := got.(Fault)
		if !ok || fl.Kind() != kind {
			t.Fatalf("got %#v for kind %q", got, kind)
		}
		if l, ok := got.(*Latency); ok {
			if d := l.wait(newPCG(1)); d < 0 {
				t.Fatalf("negative wait %v", d)
			}
		}
	})
}
