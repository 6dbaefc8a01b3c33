package inject

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBusSlowSubscriber: a subscriber that does not keep up loses events
// (the publisher never blocks) and is told how many with EventDropped.
func TestBusSlowSubscriber(t *testing.T) {
	b := NewBus(BusOptions{})
	slow := b.Subscribe(2)
	defer slow.Close()
	for i := range 5 {
		b.Publish(Event{Type: EventConnOpen, Conn: i + 1})
	}
	if got := slow.Dropped(); got != 3 {
		t.Fatalf("Dropped() = %d, want 3", got)
	}
	// Drain: the two buffered events, then room again.
	for _, want := range []int{1, 2} {
		if e := <-slow.C(); e.Conn != want {
			t.Fatalf("got conn %d, want %d", e.Conn, want)
		}
	}
	b.Publish(Event{Type: EventConnOpen, Conn: 6})
	e := <-slow.C()
	if e.Type != EventDropped || e.Count != 3 {
		t.Fatalf("got %+v, want EventDropped with Count 3", e)
	}
	if e := <-slow.C(); e.Conn != 6 {
		t.Fatalf("after the drop notice: %+v, want conn 6", e)
	}
}

// TestBusFastSubscriberUnaffected: one slow subscriber does not make
// another lose events.
func TestBusFastSubscriberUnaffected(t *testing.T) {
	b := NewBus(BusOptions{})
	slow := b.Subscribe(1)
	defer slow.Close()
	fast := b.Subscribe(100)
	defer fast.Close()
	for i := range 50 {
		b.Publish(Event{Type: EventInjection, Conn: i})
	}
	if fast.Dropped() != 0 || len(fast.C()) != 50 {
		t.Fatalf("fast subscriber: dropped %d, buffered %d", fast.Dropped(), len(fast.C()))
	}
	if slow.Dropped() != 49 {
		t.Fatalf("slow subscriber dropped %d, want 49", slow.Dropped())
	}
}

func TestBusRecent(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewBus(BusOptions{Keep: 4, Clock: &fakeClock{now: at}})
	if got := b.Recent(10); len(got) != 0 {
		t.Fatalf("empty bus: %v", got)
	}
	seqs := func(es []Event) []uint64 {
		var out []uint64
		for _, e := range es {
			out = append(out, e.Seq)
			if !e.Time.Equal(at) {
				t.Errorf("event %d stamped %v, want %v", e.Seq, e.Time, at)
			}
		}
		return out
	}
	for range 3 {
		b.Publish(Event{Type: EventConnOpen})
	}
	if diff := cmp.Diff([]uint64{2, 3}, seqs(b.Recent(2))); diff != "" {
		t.Errorf("before wrapping (-want +got):\n%s", diff)
	}
	for range 3 {
		b.Publish(Event{Type: EventConnClose})
	}
	if diff := cmp.Diff([]uint64{3, 4, 5, 6}, seqs(b.Recent(10))); diff != "" {
		t.Errorf("after wrapping (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint64{5, 6}, seqs(b.Recent(2))); diff != "" {
		t.Errorf("last two (-want +got):\n%s", diff)
	}
}

func TestBusCloseSubscription(t *testing.T) {
	b := NewBus(BusOptions{})
	s := b.Subscribe(1)
	s.Close()
	s.Close()                             // idempotent
	b.Publish(Event{Type: EventConnOpen}) // no panic: unsubscribed
	if _, ok := <-s.C(); ok {
		t.Fatal("channel open after Close")
	}
}
