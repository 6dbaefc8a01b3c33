package front

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestPumpHostile: whatever the host sends down wrap's stdin, the pump
// passes the same bytes in the same order, the session keeps no more than
// its bounds, and a normal call after it is recorded; the heap it keeps
// stays small.
func TestPumpHostile(t *testing.T) {
	manyCalls := func(n int, frame func(i int) string) io.Reader {
		var b strings.Builder
		for i := range n {
			b.WriteString(frame(i))
			b.WriteByte('\n')
		}
		return strings.NewReader(b.String())
	}
	// How long the host waits before its normal call: the call timeout
	// frees the room that calls never answered took.
	wait := map[string]time.Duration{"100,000 calls never answered, each with its own tool and token": 10 * time.Minute}
	for _, tc := range []struct {
		name  string
		input func() io.Reader
		check func(t *testing.T, s *session, sink *captureSink)
	}{
		{"100 MB line", func() io.Reader {
			return repeated(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"huge","arguments":{"text":"`, 'a', 100<<20, "\"}}}\n")
		}, nil},
		{"frame nested 1,000,000 deep", func() io.Reader {
			return strings.NewReader(strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + "\n")
		}, nil},
		{"50 MB with no newline, then one", func() io.Reader {
			return repeated("", 'z', 50<<20, "\n")
		}, nil},
		{"JSON-RPC batch of 100,000 calls", func() io.Reader {
			calls := make([]string, 100_000)
			for i := range calls {
				calls[i] = callBody(fmt.Sprintf("b%d", i), "batched")
			}
			return strings.NewReader("[" + strings.Join(calls, ",") + "]\n")
		}, nil},
		{"invalid UTF-8 and NUL in tool names", func() io.Reader {
			return strings.NewReader(`{"jsonrpc":"2.0","id":"n1","method":"tools/call","params":{"name":"bad\u0000name"}}` + "\n" +
				"{\"jsonrpc\":\"2.0\",\"id\":\"n2\",\"method\":\"tools/call\",\"params\":{\"name\":\"bad\xff\xfename\"}}\n" +
				"{\"jsonrpc\":\"2.0\",\"id\":\"n3\\udc00\",\"method\":\"tools/call\",\"params\":{\"name\":\"ok\"}}\n" +
				"{\"jsonrpc\":\"2.0\",\"id\":\"n4\xff\",\"method\":\"tools/call\",\"params\":{\"name\":\"ok\"}}\n")
		}, func(t *testing.T, _ *session, sink *captureSink) {
			for _, c := range sink.started {
				if err := c.check(ReportCallStart, Limits{}.withDefaults()); err != nil {
					t.Errorf("call %q recorded as no report may carry it: %v", c.ID, err)
				}
			}
		}},
		{"request id of 3 MiB", func() io.Reader {
			return strings.NewReader(callBody(strings.Repeat("i", 3<<20), "long-id") + "\n")
		}, func(t *testing.T, s *session, _ *captureSink) {
			for id := range s.open {
				if len(id) > maxIDBytes {
					t.Errorf("an open call's id is %d bytes", len(id))
				}
			}
		}},
		{"100,000 calls never answered, each with its own tool and token", func() io.Reader {
			return manyCalls(100_000, func(i int) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t%d","_meta":{"progressToken":%d}}}`, i, i, i)
			})
		}, func(t *testing.T, s *session, _ *captureSink) {
			if len(s.open) > s.lim.MaxOpen || len(s.attempts) > s.lim.MaxKeys || len(s.progress) > s.lim.MaxOpen {
				t.Errorf("the session holds %d open calls, %d attempt keys, %d tokens; bounds %d, %d, %d",
					len(s.open), len(s.attempts), len(s.progress), s.lim.MaxOpen, s.lim.MaxKeys, s.lim.MaxOpen)
			}
		}},
		{"100,000 tools/list never answered", func() io.Reader {
			return manyCalls(100_000, func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":"l%d","method":"tools/list"}`, i) })
		}, func(t *testing.T, s *session, _ *captureSink) {
			if len(s.lists) > s.lim.MaxOpen {
				t.Errorf("the session awaits %d tools/list replies, bound %d", len(s.lists), s.lim.MaxOpen)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := heap()
			sink := newCaptureSink()
			clock := &stepClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			s := newSession(Session{ID: "hostile", Front: WrapFront}, sink, nil, clock, Limits{}.withDefaults())
			lim := s.lim
			normal := callBody("after", "echo") + "\n"
			in, out := sha256.New(), sha256.New()
			see := func(f []byte) reply { // as Wrap does
				if msgs := parseFrame(f); msgs != nil {
					s.expire()
					s.fromClient(msgs)
				}
				return reply{}
			}
			if err := pump(out, io.TeeReader(tc.input(), in), lim.MaxFrame, see); err != nil {
				t.Fatal(err)
			}
			clock.t = clock.t.Add(wait[tc.name])
			if err := pump(out, io.TeeReader(strings.NewReader(normal), in), lim.MaxFrame, see); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(in.Sum(nil), out.Sum(nil)) {
				t.Fatal("the pump changed the bytes")
			}
			answer := `{"jsonrpc":"2.0","id":"after","result":{"content":[{"type":"text","text":"still here"}]}}` + "\n"
			if err := pump(io.Discard, strings.NewReader(answer), lim.MaxFrame, func(f []byte) reply {
				return s.fromServer(parseFrame(f), true)
			}); err != nil {
				t.Fatal(err)
			}
			if c := sink.byTool("echo"); len(c) != 1 || c[0].Channel != ChannelSuccess || c[0].Text != "still here" {
				t.Errorf("the normal call after it: %v", c)
			}
			s.mu.Lock()
			if tc.check != nil {
				tc.check(t, s, sink)
			}
			s.mu.Unlock()
			sink.mu.Lock()
			sink.started, sink.ended = nil, nil // the test's record, not the session's
			sink.mu.Unlock()
			if grown := heap() - base; grown > 64<<20 {
				t.Errorf("the heap grew by %d MiB and stayed", grown>>20)
			}
			s.close("done", noReply("done"))
		})
	}
}
