package api_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestEventsStream follows GET /v1/events: replayed and live events,
// filtered by type, resumed with Last-Event-ID.
func TestEventsStream(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{})
	ctx := t.Context()
	be := backend(t)
	up, err := f.client.AddUpstream(ctx, api.UpstreamRequest{Name: "carrier", Protocol: "http", Target: be.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.client.AddFault(ctx, api.FaultRequest{Name: "teapot", Upstream: "carrier", When: `path == "/tea"`,
		Fault: api.FaultSpec{Kind: "http_error", Params: map[string]any{"status": 418}}}); err != nil {
		t.Fatal(err)
	}
	get(t, "http://"+up.Listen+"/tea") // before the stream: replayed

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan api.Event, 64)
	errc := make(chan error, 1)
	go func() {
		// The stream subscribes before it replays, so with a replay
		// covering everything no event can fall between: no need to know
		// when the stream is up.
		errc <- f.client.Events(sctx, api.EventsOptions{Replay: 1000, Types: []string{"injection", "exchange"}},
			func(e api.Event) error { events <- e; return nil })
	}()
	get(t, "http://"+up.Listen+"/tea") // live (or replayed: either way seen once)

	var got []api.Event
	timeout := time.After(10 * time.Second)
	for len(got) < 4 {
		select {
		case e := <-events:
			got = append(got, e)
		case <-timeout:
			t.Fatalf("events after 10s: %+v", got)
		}
	}
	for i, e := range got {
		if e.Type != "injection" && e.Type != "exchange" {
			t.Errorf("event %d: type %q passed the filter", i, e.Type)
		}
		if e.Upstream != "carrier" || e.Rule != "teapot" || e.Fault != "http_error" {
			t.Errorf("event %d: %+v", i, e)
		}
		if i > 0 && e.Seq <= got[i-1].Seq {
			t.Errorf("event %d: seq %d after %d", i, e.Seq, got[i-1].Seq)
		}
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("Events: %v", err)
	}

	// Resume after the second event: the replay starts with the third.
	var resumed []api.Event
	err = f.client.Events(ctx, api.EventsOptions{LastEventID: got[1].Seq, NoFollow: true, Types: []string{"injection", "exchange"}},
		func(e api.Event) error { resumed = append(resumed, e); return nil })
	if err != nil || len(resumed) != 2 || resumed[0].Seq != got[2].Seq {
		t.Fatalf("resume after seq %d: %+v, %v", got[1].Seq, resumed, err)
	}
}

// TestSlowConsumerDropped: a stream that falls behind its buffer is told
// and closed; publishing never waits for it.
func TestSlowConsumerDropped(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{EventBuffer: 4})
	req, err := http.NewRequestWithContext(t.Context(), "GET", f.base+"/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// The headers arrive after the stream subscribed.
	dropped := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if sc.Text() == "event: "+api.EventDropped {
				close(dropped)
			}
		}
	}()
	bus := f.reg.Bus()
	deadline := time.Now().Add(10 * time.Second)
	var slowest time.Duration
publish:
	for {
		select {
		case <-dropped:
			break publish
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the stream was not dropped within 10s")
		}
		for range 1000 {
			start := time.Now()
			bus.Publish(inject.Event{Type: inject.EventExchange, Upstream: "flood", Status: 200})
			slowest = max(slowest, time.Since(start))
		}
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not close the stream after dropping it")
	}
	t.Logf("slowest Publish while the stream lagged: %v", slowest)
	metrics := scrape(t, f)
	if v := metrics.value("mcpchaos_api_event_streams_dropped_total", nil); v != 1 {
		t.Errorf("mcpchaos_api_event_streams_dropped_total = %v, want 1", v)
	}
}

// TestEventsEndOnShutdown: Serve returns while a stream is open, and the
// client sees the stream end.
func TestEventsEndOnShutdown(t *testing.T) {
	f := setup(t, "loopback", nil, api.Options{})
	// The replayed marker tells the test the stream is up.
	f.reg.Bus().Publish(inject.Event{Type: inject.EventConnOpen, Upstream: "marker"})
	open := make(chan struct{}, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- f.client.Events(context.Background(), api.EventsOptions{Replay: 1}, func(api.Event) error {
			select {
			case open <- struct{}{}:
			default:
			}
			return nil
		})
	}()
	<-open
	if v := scrape(t, f).value("mcpchaos_api_event_streams", nil); v != 1 {
		t.Errorf("mcpchaos_api_event_streams = %v, want 1", v)
	}
	if err := f.srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil && !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("Events after Close: %v", err)
	}
}
