package inject

import (
	"sync"
	"sync/atomic"

	"github.com/mcpchaos/mcpchaos/rules"
)

// BusOptions configures a [Bus]. The zero value is usable.
type BusOptions struct {
	// Keep is how many recent events the bus remembers for [Bus.Recent];
	// zero means 4096.
	Keep int
	// Clock stamps events; nil means the system clock.
	Clock rules.Clock
}

// Bus fans events out to subscribers without ever blocking the data path:
// a subscriber whose buffer is full loses the event, and is told how many
// it lost by an [EventDropped] event once it has room again.
type Bus struct {
	clock rules.Clock
	seq   atomic.Uint64

	mu   sync.Mutex
	ring []Event
	next int
	full bool
	subs map[*Subscription]struct{}
}

// NewBus returns an empty bus.
func NewBus(opts BusOptions) *Bus {
	if opts.Keep <= 0 {
		opts.Keep = 4096
	}
	if opts.Clock == nil {
		opts.Clock = rules.SystemClock{}
	}
	return &Bus{clock: opts.Clock, ring: make([]Event, opts.Keep), subs: map[*Subscription]struct{}{}}
}

// Publish stamps e with a sequence number and, if unset, the time, then
// records it and offers it to every subscriber.
func (b *Bus) Publish(e Event) {
	e.Seq = b.seq.Add(1)
	if e.Time.IsZero() {
		e.Time = b.clock.Now()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ring[b.next] = e
	b.next++
	if b.next == len(b.ring) {
		b.next, b.full = 0, true
	}
	for s := range b.subs {
		s.offer(e)
	}
}

// Recent returns up to n of the most recent events, oldest first.
func (b *Bus) Recent(n int) []Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	size := b.next
	if b.full {
		size = len(b.ring)
	}
	n = min(n, size)
	out := make([]Event, 0, n)
	for i := size - n; i < size; i++ {
		j := i
		if b.full {
			j = (b.next + i) % len(b.ring)
		}
		out = append(out, b.ring[j])
	}
	return out
}

// Subscribe returns a subscription whose channel buffers up to buf events
// (at least 1). Close it when done.
func (b *Bus) Subscribe(buf int) *Subscription {
	s := &Subscription{bus: b, ch: make(chan Event, max(buf, 1))}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// Subscription receives events from a [Bus].
type Subscription struct {
	bus     *Bus
	ch      chan Event
	lost    uint64 // guarded by bus.mu
	dropped atomic.Uint64
	once    sync.Once
}

// C delivers events. It is closed by Close.
func (s *Subscription) C() <-chan Event { return s.ch }

// Dropped returns how many events this subscriber has lost in all.
func (s *Subscription) Dropped() uint64 { return s.dropped.Load() }

// Close unsubscribes and closes C.
func (s *Subscription) Close() {
	s.once.Do(func() {
		s.bus.mu.Lock()
		delete(s.bus.subs, s)
		close(s.ch)
		s.bus.mu.Unlock()
	})
}

// offer sends e without blocking; bus.mu is held.
func (s *Subscription) offer(e Event) {
	if s.lost > 0 {
		select {
		case s.ch <- Event{Type: EventDropped, Time: e.Time, Count: s.lost}:
			s.lost = 0
		default:
			s.lost++
			s.dropped.Add(1)
			return
		}
	}
	select {
	case s.ch <- e:
	default:
		s.lost++
		s.dropped.Add(1)
	}
}
