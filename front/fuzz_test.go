package front

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// chunked reads data n bytes at a time, as a pipe may deliver it.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

var frameSeeds = []string{
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"a\":1}}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"x\"}],\"isError\":true}}\n",
	"not json\n{\"id\":2}\r\nno newline at the end",
	"[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}},{\"id\":\"a\",\"error\":{\"code\":-1,\"message\":\"m\"}}]\n",
	"\n\n\n" + string(bytes.Repeat([]byte("["), 100)) + "\n",
	"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"properties\":{\"a\":{}},\"required\":[\"a\"]},\"annotations\":{\"readOnlyHint\":true}}]}}\n",
	// Found hostile: names and ids no report may carry, kept as they came.
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\\u0000b\\u001b\"}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"tools/call\",\"params\":{\"name\":\"\xffbad\"}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":\"" + strings.Repeat("i", 300) + "\",\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"_meta\":{\"progressToken\":\"" + strings.Repeat("p", 300) + "\"}}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"host\\u0007\\n\",\"version\":\"\xff\"},\"protocolVersion\":\"\\u0000\"}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"tools\":[{\"name\":\"n\\u0000ul\"},{\"name\":\"" + strings.Repeat("n", 1100) + "\"}],\"serverInfo\":{\"name\":\"s\\r\"}}}\n",
}

// FuzzPump: whatever the bytes and however they arrive, the pump writes
// them out unchanged, and sees only whole frames within the bound.
func FuzzPump(f *testing.F) {
	for _, s := range frameSeeds {
		f.Add([]byte(s), uint16(64), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, max uint16, chunk uint8) {
		limit := int(max)%4096 + 16
		var out bytes.Buffer
		// A read buffer smaller than the bound, so that long frames are
		// gathered across reads.
		buf := 16 + int(chunk)%64
		err := pumpSized(&out, &chunked{data: data, n: int(chunk) + 1}, limit, buf, func(frame []byte) reply {
			if len(frame) > limit || frame[len(frame)-1] != '\n' {
				t.Fatalf("saw %d bytes %q (limit %d)", len(frame), frame, limit)
			}
			return reply{}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("pumped %q, want %q", out.Bytes(), data)
		}
	})
}

// FuzzSSESplit: the events and raw pieces an SSE stream is cut into are
// the stream itself, in order; a holding tap that changes nothing returns
// the stream unchanged.
func FuzzSSESplit(f *testing.F) {
	f.Add([]byte("event: message\nid: a_1\ndata: {\"id\":1}\n\n: comment\r\n\r\ndata: x\rdata: y\r\r"), uint16(64), uint8(5))
	f.Add([]byte("data: "+string(bytes.Repeat([]byte("z"), 300))+"\n\ndata: short\n\n"), uint16(100), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, max uint16, chunk uint8) {
		limit := int(max)%2048 + 1
		var got bytes.Buffer
		sp := &sseSplit{max: limit}
		keep := func(b []byte) { got.Write(b) }
		src := &chunked{data: data, n: int(chunk) + 1}
		buf := make([]byte, 512)
		for {
			n, err := src.Read(buf)
			sp.feed(buf[:n], keep, keep)
			if err != nil {
				break
			}
		}
		sp.end(keep, keep)
		if !bytes.Equal(got.Bytes(), data) {
			t.Fatalf("split into %q, want %q", got.Bytes(), data)
		}
		tp := newTap(context.Background(), io.NopCloser(&chunked{data: data, n: int(chunk) + 1}), &sseSplit{max: limit}, true, false,
			sseSee(func([]byte) reply { return reply{} }))
		out, err := io.ReadAll(tp)
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("held tap: %q %v, want %q", out, err, data)
		}
		_, _ = sseFields(data)
	})
}

// reportSink fails a fuzz run when a session tells it something a
// report could not carry to serve (which would refuse its whole batch).
type reportSink struct {
	t   *testing.T
	lim Limits
}

func (r reportSink) session(s Session) {
	if err := s.check(); err != nil {
		r.t.Fatalf("session %+v: %v", s, err)
	}
}

func (r reportSink) SessionOpened(s Session)  { r.session(s) }
func (r reportSink) SessionUpdated(s Session) { r.session(s) }
func (r reportSink) SessionClosed(s Session)  { r.session(s) }
func (r reportSink) CallStarted(c *Call) {
	if err := c.check(ReportCallStart, r.lim); err != nil {
		r.t.Fatalf("call start %+v: %v", *c, err)
	}
}
func (r reportSink) CallEnded(c Call) {
	if err := c.check(ReportCallEnd, r.lim); err != nil {
		r.t.Fatalf("call end %+v: %v", c, err)
	}
}

// FuzzSession: frames of any shape fed both ways never crash a session,
// it never holds more open calls than its bound, and everything it
// records could be reported to serve.
func FuzzSession(f *testing.F) {
	for _, s := range frameSeeds {
		f.Add([]byte(s), []byte(frameSeeds[1]))
	}
	f.Add([]byte(frameSeeds[5]), []byte(frameSeeds[6]))
	f.Fuzz(func(t *testing.T, fromClient, fromServer []byte) {
		lim := Limits{MaxOpen: 4, MaxKeys: 4, MaxText: 64, MaxArgs: 64}.withDefaults()
		table := rules.NewTable(rules.TableOptions{ParseFault: inject.ParseFault})
		_, _ = table.Put(rules.Rule{Name: "t", Fault: rules.FaultSpec{Kind: "tamper"}})
		sink := reportSink{t: t, lim: Limits{}.withDefaults()}
		s := newSession(Session{ID: "f"}, sink, newTamperer(table, WrapFront), rules.SystemClock{}, lim)
		for _, line := range bytes.Split(fromClient, []byte("\n")) {
			if msgs := parseFrame(line); msgs != nil {
				s.fromClient(msgs)
			}
		}
		for _, line := range bytes.Split(fromServer, []byte("\n")) {
			if msgs := parseFrame(line); msgs != nil {
				s.fromServer(msgs, true)
			}
		}
		s.mu.Lock()
		open := len(s.open)
		s.mu.Unlock()
		if open > lim.MaxOpen {
			t.Fatalf("%d open calls, bound %d", open, lim.MaxOpen)
		}
		s.close("fuzz", noReply("fuzz"))
	})
}
