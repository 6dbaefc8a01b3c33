package front

import (
	"bytes"
	"io"
	"testing"

	"github.com/mcpchaos/mcpchaos/rules"
)

// BenchmarkSessionFrames is the parsing and recording a wrapped call
// costs: its request read from the client, its reply from the server.
func BenchmarkSessionFrames(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"p7"},"name":"create_order","arguments":{"sku":"A-1001","qty":2}}}` + "\n")
	resp := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"order A-1001: created, id 4242"}]}}` + "\n")
	s := newSession(Session{ID: "b"}, Discard{}, nil, rules.SystemClock{}, Limits{}.withDefaults())
	b.ReportAllocs()
	for b.Loop() {
		s.fromClient(parseFrame(req))
		s.fromServer(parseFrame(resp), true)
	}
}

// BenchmarkPump is the pump alone, frames of a typical size.
func BenchmarkPump(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"order A-1001: created, id 4242"}]}}` + "\n")
	data := bytes.Repeat(frame, 1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_ = pump(io.Discard, bytes.NewReader(data), 4<<20, func([]byte) reply { return reply{} })
	}
}
