package inject

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/rules"
)

// Options configures a [Registry]. The zero value is usable.
type Options struct {
	// Logger receives connection errors and control-plane notes. The zero
	// value logs nothing.
	Logger zerolog.Logger
	// Seed seeds every probability decision and every jitter, so a run
	// printed with its seed replays exactly. Zero is a valid seed.
	Seed uint64
	// Clock tells the time for TTLs and event stamps; nil means the
	// system clock.
	Clock rules.Clock
	// DefaultTTL and MaxTTL are passed to [rules.TableOptions]: zero
	// DefaultTTL means [rules.DefaultTTL] (negative: no expiry), zero
	// MaxTTL means no cap.
	DefaultTTL, MaxTTL time.Duration
	// Bus receives events; nil means NewBus(BusOptions{Clock: Clock}).
	Bus *Bus
	// Limits bounds the faults rules may ask for (the zero value: the
	// default, an hour for any duration).
	Limits Limits
}

// Registry owns the upstreams' proxies, the rule table and the event bus.
// Its methods are safe for concurrent use. Every change (a rule, the call
// context, an upstream) reaches every live connection before the method
// that made it returns.
type Registry struct {
	log   zerolog.Logger
	table *rules.Table
	bus   *Bus
	// call is the attribution of the open calls (nil: none), read by the
	// data path; open holds the calls in the order they opened (guarded
	// by mu); simClose closes the one SetCall opened (guarded by simMu).
	call     atomic.Pointer[callState]
	open     []*callState
	simMu    sync.Mutex
	simClose func()
	done     chan struct{} // closed by Close; ends Run

	limits Limits // what NewParser was given, for describing kinds

	// mu serialises mutations with the notification of proxies, so a
	// proxy never sees an older set after a newer one.
	mu     sync.Mutex
	ups    map[string]*upstreamEntry
	fronts map[string]NewFront // by protocol; see UseFront
	closed bool
}

type upstreamEntry struct {
	spec UpstreamSpec
	p    proxy
	g    *gate // owned by p; read here for Refusing; nil for a front
}

// UpstreamInfo describes a running upstream proxy.
type UpstreamInfo struct {
	Name, Protocol string
	// Listen is the address the proxy actually listens on (the port is
	// resolved when the spec asked for port 0).
	Listen string
	// Target is the real upstream.
	Target string
	// Refusing reports that a refuse fault has stopped the listener.
	Refusing bool
}

// New returns an empty registry.
func New(opts Options) *Registry {
	if opts.Clock == nil {
		opts.Clock = rules.SystemClock{}
	}
	if opts.Bus == nil {
		opts.Bus = NewBus(BusOptions{Clock: opts.Clock})
	}
	return &Registry{
		log: opts.Logger,
		table: rules.NewTable(rules.TableOptions{
			Seed: opts.Seed, Clock: opts.Clock,
			DefaultTTL: opts.DefaultTTL, MaxTTL: opts.MaxTTL,
			ParseFault: NewParser(opts.Limits),
		}),
		bus:    opts.Bus,
		done:   make(chan struct{}),
		ups:    map[string]*upstreamEntry{},
		limits: opts.Limits,
	}
}

// Table returns the rule table, for reading (Load, Rules). Mutate it only
// through the registry, which tells the proxies.
func (r *Registry) Table() *rules.Table { return r.table }

// Limits returns the bounds faults are parsed within.
func (r *Registry) Limits() Limits { return r.limits }

// Bus returns the event bus.
func (r *Registry) Bus() *Bus { return r.bus }

// notifyLocked tells every proxy about the current set; r.mu is held.
func (r *Registry) notifyLocked() {
	s := r.table.Load()
	for _, e := range r.ups {
		e.p.changed(s)
	}
}

// AddUpstream validates spec, starts listening and starts its proxy.
func (r *Registry) AddUpstream(spec UpstreamSpec) (UpstreamInfo, error) {
	if err := spec.Validate(); err != nil {
		return UpstreamInfo{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return UpstreamInfo{}, fmt.Errorf("add upstream %q: %w", spec.Name, ErrClosed)
	}
	if _, ok := r.ups[spec.Name]; ok {
		return UpstreamInfo{}, fmt.Errorf("add upstream %q: %w", spec.Name, ErrUpstreamExists)
	}
	if spec.Protocol == ProtocolMCP {
		p, err := r.startFrontLocked(spec)
		if err != nil {
			return UpstreamInfo{}, fmt.Errorf("upstream %q: %w", spec.Name, err)
		}
		e := &upstreamEntry{spec: spec, p: p}
		r.ups[spec.Name] = e
		r.notifyLocked()
		return e.info(), nil
	}
	pe := &proxyEnv{
		spec:  spec,
		table: r.table,
		bus:   r.bus,
		log:   r.log.With().Str("upstream", spec.Name).Logger(),
		call:  r.call.Load,
	}
	g, err := listenGate(spec.Listen)
	if err != nil {
		return UpstreamInfo{}, fmt.Errorf("upstream %q: listen on %s: %w", spec.Name, spec.Listen, err)
	}
	// Each constructor owns g from here on, closing it on failure.
	newProxy := newTCPProxy
	if spec.Protocol == ProtocolHTTP {
		newProxy = newHTTPProxy
	}
	p, err := newProxy(pe, g)
	if err != nil {
		return UpstreamInfo{}, fmt.Errorf("upstream %q: %w", spec.Name, err)
	}
	e := &upstreamEntry{spec: spec, p: p, g: g}
	r.ups[spec.Name] = e
	// A rule that names no upstream (or a refuse rule put before this
	// upstream existed) applies to the new proxy at once.
	r.notifyLocked()
	return e.info(), nil
}

func (e *upstreamEntry) info() UpstreamInfo {
	return UpstreamInfo{Name: e.spec.Name, Protocol: e.spec.Protocol, Listen: e.p.addr().String(),
		Target: e.spec.Target, Refusing: e.g != nil && e.g.refusing()}
}

// RemoveUpstream stops the named upstream's proxy, ends its connections
// and waits for them. Rules naming the upstream stay in the table (they
// match nothing until an upstream of that name is added again).
func (r *Registry) RemoveUpstream(name string) error {
	r.mu.Lock()
	e, ok := r.ups[name]
	delete(r.ups, name)
	r.mu.Unlock()
	if !ok {
		return fmt.Errorf("remove upstream %q: %w", name, ErrUnknownUpstream)
	}
	if err := e.p.close(); err != nil {
		return fmt.Errorf("remove upstream %q: %w", name, err)
	}
	return nil
}

// Upstream describes the named upstream.
func (r *Registry) Upstream(name string) (UpstreamInfo, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.ups[name]
	if !ok {
		return UpstreamInfo{}, fmt.Errorf("upstream %q: %w", name, ErrUnknownUpstream)
	}
	return e.info(), nil
}

// Upstreams describes every upstream, sorted by name.
func (r *Registry) Upstreams() []UpstreamInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]UpstreamInfo, 0, len(r.ups))
	for _, e := range r.ups {
		out = append(out, e.info())
	}
	slices.SortFunc(out, func(a, b UpstreamInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// checkRuleLocked checks what the table cannot: that the rule's upstream
// exists and that its fault kind applies to that upstream's protocol.
func (r *Registry) checkRuleLocked(rule rules.Rule) error {
	if rule.Upstream == "" {
		return nil
	}
	e, ok := r.ups[rule.Upstream]
	if !ok {
		return &rules.FieldError{Rule: rule.Name, Field: "upstream",
			Msg: fmt.Sprintf("%q is not an upstream", rule.Upstream), Err: ErrUnknownUpstream}
	}
	k, ok := Kind(rule.Fault.Kind)
	if !ok {
		return nil // the table reports an unknown kind with its list
	}
	if !k.AppliesTo(e.spec.Protocol) {
		return &rules.FieldError{Rule: rule.Name, Field: "fault.kind",
			Msg: fmt.Sprintf("%s does not apply to %s upstream %q", k.Name, e.spec.Protocol, e.spec.Name)}
	}
	return nil
}

// PutRule adds rule, or replaces the rule of the same name in place. It
// reports whether the rule is new.
func (r *Registry) PutRule(rule rules.Rule) (created bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.checkRuleLocked(rule); err != nil {
		return false, err
	}
	created, err = r.table.Put(rule)
	if err != nil {
		return false, err
	}
	r.notifyLocked()
	return created, nil
}

// RemoveRule deletes the named rule; the error wraps [rules.ErrNotFound]
// if there is none.
func (r *Registry) RemoveRule(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.table.Remove(name); err != nil {
		return err
	}
	r.notifyLocked()
	return nil
}

// ReplaceRules swaps in a whole rule set; on error nothing changes.
func (r *Registry) ReplaceRules(rs []rules.Rule) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rule := range rs {
		if err := r.checkRuleLocked(rule); err != nil {
			return err
		}
	}
	if err := r.table.Replace(rs); err != nil {
		return err
	}
	r.notifyLocked()
	return nil
}

// Halt removes every rule and returns how many it removed: held
// connections heal and refusing listeners reopen.
func (r *Registry) Halt() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.table.Clear()
	r.notifyLocked()
	return n
}

// Sweep removes expired rules and returns how many it removed.
func (r *Registry) Sweep() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.table.Sweep()
	r.notifyLocked()
	return n
}

// maxSweepWait caps how long Run sleeps, so that a fake or adjusted clock
// is noticed.
const maxSweepWait = time.Second

// Run sweeps expired rules as they expire, which wakes connections held
// by them, until ctx is done or the registry is closed. Running it is
// optional: without it expired rules stop matching new traffic but stay
// in the table until [Registry.Sweep].
func (r *Registry) Run(ctx context.Context) error {
	timer := time.NewTimer(maxSweepWait)
	defer timer.Stop()
	for {
		s := r.table.Load()
		now := r.table.Now()
		next := nextExpiry(s)
		if !next.IsZero() && !now.Before(next) {
			r.Sweep()
			continue
		}
		wait := maxSweepWait
		if !next.IsZero() {
			wait = min(wait, next.Sub(now))
		}
		timer.Reset(wait) // since Go 1.23 Reset needs no drain
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.done:
			return nil
		case <-s.Changed():
		case <-timer.C:
		}
	}
}

// nextExpiry is the earliest expiry among s's rules, or the zero time.
func nextExpiry(s *rules.Set) time.Time {
	var next time.Time
	for i := range s.Len() {
		_, st := s.Rule(i)
		if e := st.Expires(); !e.IsZero() && (next.IsZero() || e.Before(next)) {
			next = e
		}
	}
	return next
}

// drainPoll is how often Shutdown looks at the proxies while it drains.
const drainPoll = 5 * time.Millisecond

// DefaultShutdownGrace is a sensible bound for [Registry.Shutdown]'s
// drain: long enough for released exchanges to be answered, short enough
// that stopping does not feel stuck.
const DefaultShutdownGrace = 5 * time.Second

// Shutdown ends the registry gracefully, as http.Server.Shutdown ends a
// server: it removes every rule, so that held, delayed and refused
// traffic flows again; then it waits until no proxy has an exchange in
// flight (an HTTP request being answered; for TCP, an open connection),
// or until ctx is done; then it closes like [Registry.Close]. The
// proxies keep accepting while they drain, with no fault left. It
// returns how many rules it removed, and ctx's error if the wait was cut
// short (the close happened anyway).
func (r *Registry) Shutdown(ctx context.Context) (int, error) {
	n := r.Halt()
	tick := time.NewTicker(drainPoll)
	defer tick.Stop()
	var waitErr error
	for r.inFlight() > 0 {
		select {
		case <-ctx.Done():
			waitErr = fmt.Errorf("draining proxies: %w", ctx.Err())
		case <-tick.C:
			continue
		}
		break
	}
	return n, errors.Join(waitErr, r.Close())
}

// inFlight sums the proxies' in-flight connections.
func (r *Registry) inFlight() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.ups {
		if d, ok := e.p.(drainer); ok {
			n += d.inFlight()
		}
	}
	return n
}

// Close stops every proxy, ends their connections and waits for every
// goroutine they started. Later AddUpstream calls fail with [ErrClosed].
// It cuts whatever is in flight; [Registry.Shutdown] lets it finish.
func (r *Registry) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	close(r.done)
	ups := r.ups
	r.ups = map[string]*upstreamEntry{}
	r.mu.Unlock()
	var errs []error
	for _, e := range ups {
		if err := e.p.close(); err != nil {
			errs = append(errs, fmt.Errorf("close upstream %q: %w", e.spec.Name, err))
		}
	}
	return errors.Join(errs...)
}
