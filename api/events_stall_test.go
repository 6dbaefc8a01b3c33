package api_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestStalledStreamGetsDropped: a client that stops reading its event
// stream is counted as dropped while it is stuck; when it reads again it
// finds whole events only, then an event "dropped" counting what it
// lost, then the end of the stream.
func TestStalledStreamGetsDropped(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{EventStall: 50 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	req, err := http.NewRequest("GET", f.base+"/v1/events?type=exchange", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReaderSize(conn, 4<<10)
	// The headers come after the stream subscribed.
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/events: %s", resp.Status)
	}

	// From here the client reads nothing. Big events fill the socket
	// buffers (a few MiB on loopback, since a receive buffer only grows
	// as its application reads) until the server's write blocks; the bus
	// keeps the rest for the stream (its buffer holds 1024 events, more
	// than is ever published here).
	bus := f.reg.Bus()
	detail := strings.Repeat("x", 128<<10)
	flood := 0
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for scrape(t, f).value("mcpchaos_api_event_streams_dropped_total", nil) != 1 {
		if flood >= 800 {
			t.Fatalf("%d events of %d KiB published, and the stream never stalled", flood, len(detail)>>10)
		}
		for range 8 {
			bus.Publish(inject.Event{Type: inject.EventExchange, Upstream: "flood", Status: 200, Detail: detail})
			flood++
		}
		select {
		case <-t.Context().Done():
			t.Fatal("the stalled stream was never counted as dropped")
		case <-tick.C:
		}
	}
	// Published while the stream is stuck: these are lost to it.
	for range 10 {
		bus.Publish(inject.Event{Type: inject.EventExchange, Upstream: "late", Status: 200})
	}

	// The client reads again: whole frames, the last one "dropped".
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the stream after the stall: %v (%d bytes)", err, len(body))
	}
	text := string(body)
	if !strings.HasSuffix(text, "\n\n") {
		t.Fatalf("the stream ends mid-frame: ...%q", text[max(0, len(text)-80):])
	}
	frames := strings.Split(strings.TrimSuffix(text, "\n\n"), "\n\n")
	var lastID uint64
	for i, fr := range frames[:len(frames)-1] {
		var id uint64
		var data string
		for line := range strings.SplitSeq(fr, "\n") {
			switch {
			case strings.HasPrefix(line, "id: "):
				_, _ = fmt.Sscan(line[4:], &id)
			case strings.HasPrefix(line, "data: "):
				data = line[6:]
			}
		}
		var e api.Event
		if err := json.Unmarshal([]byte(data), &e); err != nil || e.Upstream != "flood" || len(e.Detail) != len(detail) {
			t.Fatalf("frame %d is not a whole flood event (%d bytes): %v", i, len(fr), err)
		}
		if lastID != 0 && id != lastID+1 {
			t.Fatalf("frame %d has id %d after %d", i, id, lastID)
		}
		lastID = id
	}
	last := frames[len(frames)-1]
	data, ok := strings.CutPrefix(last, "event: "+api.EventDropped+"\ndata: ")
	if !ok {
		t.Fatalf("last frame is not a dropped event: %.200q", last)
	}
	var d api.Event
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatal(err)
	}
	// The count covers at least the rest of the flood (the late events
	// too, unless the server found the stream slow before it was stuck).
	sent := uint64(len(frames) - 1)
	if d.Count == 0 || d.Seq != lastID || sent+d.Count < uint64(flood) {
		t.Errorf("dropped event %+v after %d of %d events, up to id %d: want a count covering the rest, seq %d",
			d, sent, flood, lastID, lastID)
	}
	if v := scrape(t, f).value("mcpchaos_api_event_streams_dropped_total", nil); v != 1 {
		t.Errorf("mcpchaos_api_event_streams_dropped_total = %v, want 1", v)
	}
}
