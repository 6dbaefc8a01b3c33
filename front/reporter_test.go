package front

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/inject"
)

// ingestHandler takes reports the way serve's API does, into rec.
func ingestHandler(t *testing.T, rec *Recorder, token string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != ReportsPath || r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		data, _ := io.ReadAll(r.Body)
		reps, err := DecodeReports(data)
		if err == nil {
			err = rec.Ingest(reps)
		}
		if err != nil {
			t.Errorf("ingest: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	}
}

// TestReporterSendsToRecorder: what a wrapper's session sees reaches a
// serve's recorder in order; with Hold, a call's start is there before
// CallStarted returns.
func TestReporterSendsToRecorder(t *testing.T) {
	reg := inject.New(inject.Options{Logger: zerolog.Nop()})
	defer reg.Close()
	rec := NewRecorder(reg, RecorderOptions{})
	defer rec.Close()
	url := serveHTTP(t, ingestHandler(t, rec, "s3cret-token-0123"))
	rep, err := NewReporter(ReporterOptions{URL: url, Token: "s3cret-token-0123", Hold: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	s := Session{ID: "wrap-1-2", Front: WrapFront, Transport: "stdio"}
	rep.SessionOpened(s)
	c := &Call{Session: s.ID, Seq: 1, ID: "1", Tool: "t", Attempt: 1}
	rep.CallStarted(c)
	if st := rec.Stats(); st.Open != 1 || reg.OpenCalls() != 1 {
		t.Fatalf("after a held start: %+v, registry %d open", st, reg.OpenCalls())
	}
	end := *c
	end.Channel = ChannelSuccess
	rep.CallEnded(end)
	rep.SessionClosed(s)
	if err := rep.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := rep.Stats(); st.Sent != 4 || st.Dropped != 0 || st.Failed != 0 {
		t.Errorf("reporter %+v", st)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if calls := rec.Calls(CallQuery{}); len(calls) != 1 || calls[0].N != 1 || calls[0].Channel != ChannelSuccess {
		t.Errorf("recorded %v", calls)
	}
	if ss := rec.Sessions(); len(ss) != 1 || ss[0].ID != s.ID || ss[0].End.IsZero() {
		t.Errorf("sessions %+v", ss)
	}
}

// TestReporterNeverBlocks: a serve that does not answer costs the data
// path at most Hold per call start; reports beyond the queue are dropped
// and counted; Close gives up when its context ends.
func TestReporterNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	var got atomic.Int64
	url := serveHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	var once sync.Once
	defer once.Do(func() { close(release) })
	rep, err := NewReporter(ReporterOptions{URL: url, Queue: 4, Batch: 2, Hold: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		rep.CallStarted(&Call{Session: "s", Seq: i + 1, Tool: "t"}) // returns after Hold at most
	}
	if st := rep.Stats(); st.Dropped == 0 {
		t.Errorf("a stuck serve dropped nothing: %+v", st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // give up at once on what is queued
	if err := rep.Close(ctx); err != nil {
		t.Fatal(err)
	}
	once.Do(func() { close(release) })
	st := rep.Stats()
	if st.Sent+st.Dropped+st.Failed != 20 || got.Load() == 0 {
		t.Errorf("every report is accounted for: %+v (requests %d)", st, got.Load())
	}
}

// TestReporterRefused: a refused batch (4xx) is not sent again; a URL
// that is not http(s) is refused up front.
func TestReporterRefused(t *testing.T) {
	var got atomic.Int64
	url := serveHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		got.Add(1)
		http.Error(w, "bad", http.StatusBadRequest)
	}))
	rep, err := NewReporter(ReporterOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	rep.CallEnded(Call{Session: "s", Seq: 1, Tool: "t", Channel: ChannelSuccess})
	if err := rep.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := rep.Stats(); st.Failed != 1 || got.Load() != 1 {
		t.Errorf("stats %+v after %d requests", st, got.Load())
	}
	if _, err := NewReporter(ReporterOptions{URL: "127.0.0.1:7777"}); err == nil {
		t.Error("a URL without a scheme was taken")
	}
}
