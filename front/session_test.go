package front

import (
	"fmt"
	"testing"
	"time"
)

// stepClock is a clock the test moves.
type stepClock struct{ t time.Time }

func (c *stepClock) Now() time.Time { return c.t }

func callFrame(id int) []message {
	return parseFrame([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{"n":%d}}}`, id, id)))
}

func replyFrame(id int) []message {
	return parseFrame([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok %d"}]}}`, id, id)))
}

// TestSessionExpire: only the calls open longer than the call timeout
// end; a call whose reply comes later (a resumed stream) is still matched;
// ending the calls of a request that had none ends nothing.
func TestSessionExpire(t *testing.T) {
	clock := &stepClock{t: time.Unix(1000, 0)}
	sink := newCaptureSink()
	s := newSession(Session{ID: "s"}, sink, nil, clock, Limits{CallTimeout: time.Minute}.withDefaults())
	s.fromClient(callFrame(1))
	clock.t = clock.t.Add(50 * time.Second)
	s.fromClient(callFrame(2))
	clock.t = clock.t.Add(20 * time.Second)
	s.expire()
	s.endCalls(nil, transportError(500)) // a GET that failed: it carried no call
	s.fromServer(replyFrame(2), true)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.ended) != 2 {
		t.Fatalf("ended %v", sink.ended)
	}
	if c := sink.ended[0]; c.Seq != 1 || c.Channel != ChannelNoResponse || c.Detail != "no reply within 1m0s" || c.Elapsed != 70*time.Second {
		t.Errorf("expired call %+v", c)
	}
	if c := sink.ended[1]; c.Seq != 2 || c.Channel != ChannelSuccess || c.Text != "ok 2" || c.Elapsed != 20*time.Second {
		t.Errorf("answered call %+v", c)
	}
}
