package reader

import (
	"strings"
	"testing"
)

// carefulReply is a typical careful reply (~50 words).
const carefulReply = "The carrier did not answer in time, so the shipment for order A-1001 may or may not have been created. " +
	"Do not retry create_shipment yet: call find_shipments with order_id A-1001 to check. " +
	"If it lists no shipment, calling create_shipment again with the same order_id and address is safe."

var benchCtx = Context{
	Tools: []Tool{
		{Name: "create_shipment", Params: []string{"order_id", "address", "idempotency_key"}},
		{Name: "find_shipments", Params: []string{"order_id"}},
		{Name: "get_shipment", Params: []string{"shipment_id"}},
		{Name: "cancel_shipment", Params: []string{"shipment_id"}},
	},
	Current: Tool{Name: "create_shipment", Params: []string{"order_id", "address", "idempotency_key"}},
}

// BenchmarkRead measures Read on a typical careful reply and on a 20 KB
// reply (the careful reply repeated, plus a stack trace), on the tool
// error channel where every reader runs.
func BenchmarkRead(b *testing.B) {
	big := strings.Repeat(carefulReply+"\n", 20<<10/len(carefulReply)) +
		"panic: runtime error: index out of range\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d\n"
	for _, bc := range []struct {
		name, text string
	}{{"typical", carefulReply}, {"20KB", big}} {
		b.Run(bc.name, func(b *testing.B) {
			r := Reply{Channel: ToolError, Text: bc.text}
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				if s := Read(r, benchCtx); !s.Read {
					b.Fatal("reply not read")
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
