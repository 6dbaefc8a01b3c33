package inject

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// forwardProxy is the proxy of a forward upstream: an HTTP forward proxy.
// It reads the first request of each client connection, finds or
// creates the destination it names, and hands the connection over to
// that destination's proxy: an HTTP proxy for absolute-form plain-HTTP
// requests and for intercepted tunnels, a TCP proxy for the other
// tunnels. Those are the ordinary proxies, fed by the forward proxy
// instead of a listener of their own (their gate is virtual): a fault
// kind means on a destination exactly what it means on an upstream of
// its own, and is written once.
type forwardProxy struct {
	ident
	pe    *proxyEnv
	spec  ForwardSpec
	g     *gate
	ca    *CA         // nil without interception
	upTLS *tlsClients // the upstreams' TLS, without interception nil
	done  chan struct{}
	wg    sync.WaitGroup

	mu     sync.Mutex
	heads  map[net.Conn]struct{} // connections whose first head is being read
	ways   map[wayKey]*way
	names  map[string]string // declared host → name
	closed bool
}

// newForwardProxy starts the forward proxy of pe.spec on g; it owns g
// from then on.
func newForwardProxy(pe *proxyEnv, g *gate) (proxy, error) {
	f := &forwardProxy{
		ident: ident{name: pe.spec.Name, protocol: ProtocolForward},
		pe:    pe,
		spec:  *pe.spec.Forward,
		g:     g,
		done:  make(chan struct{}),
		heads: map[net.Conn]struct{}{},
		ways:  map[wayKey]*way{},
		names: map[string]string{},
	}
	for _, h := range f.spec.Hosts {
		host := strings.ToLower(h.Host)
		f.names[host] = cmp.Or(h.Name, host)
	}
	if f.spec.InterceptTLS {
		var err error
		if f.ca = f.spec.CA; f.ca == nil {
			if f.ca, err = NewCA(nil, pe.table.Now); err != nil {
				_ = g.Close()
				return nil, fmt.Errorf("forward proxy %q: %w", f.name, err)
			}
		}
		if f.upTLS, err = newTLSClients(f.spec.UpstreamCA); err != nil {
			_ = g.Close()
			return nil, fmt.Errorf("forward proxy %q: %w", f.name, err)
		}
	}
	f.wg.Add(1)
	go f.acceptLoop()
	return f, nil
}

func (f *forwardProxy) addr() net.Addr { return f.g.Addr() }

func (f *forwardProxy) acceptLoop() {
	defer f.wg.Done()
	acceptEach(f.g, f.done, f.pe.log, "forward proxy", func(c net.Conn) bool {
		tc, ok := c.(*net.TCPConn)
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.closed || !ok {
			_ = c.Close()
			return !f.closed
		}
		f.heads[c] = struct{}{}
		f.wg.Add(1)
		go f.serveConn(tc)
		return true
	})
}

// serveConn reads the connection's first request head, under a deadline
// and within maxForwardHead, and hands the connection to the destination
// it names.
func (f *forwardProxy) serveConn(c *net.TCPConn) {
	defer f.wg.Done()
	defer func() {
		f.mu.Lock()
		delete(f.heads, c)
		f.mu.Unlock()
	}()
	_ = c.SetReadDeadline(time.Now().Add(forwardHeadTimeout))
	br := bufio.NewReaderSize(c, maxForwardHead)
	raw, err := peekHead(br, nil)
	switch {
	case errors.Is(err, errSlowPath):
		proxyAnswer{status: 431, perr: "http_request_error", detail: fmt.Sprintf("request head over %d bytes", maxForwardHead)}.send(c)
		return
	case err != nil:
		_ = c.Close() // gone, or silent past the deadline
		return
	}
	t, err := parseForwardHead(raw)
	if err != nil {
		proxyAnswer{status: 400, perr: "http_request_error", detail: err.Error()}.send(c)
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	kind := wayPlain
	if t.connect {
		kind = wayTunnel
		if f.spec.InterceptTLS {
			kind = wayTLS
		}
		_, _ = br.Discard(len(raw))
	}
	var pending []byte
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		pending = append([]byte(nil), b...)
	}
	w, ans := f.destination(t, kind)
	if ans != nil {
		ans.send(c)
		return
	}
	if w.g.refusing() {
		// A refuse rule has closed the destination: answer as a
		// forward proxy whose dial was refused.
		proxyAnswer{status: 502, perr: "connection_refused", detail: "connection refused"}.send(c)
		return
	}
	w.hand(c, t.connect, pending)
}

// changed passes a rule change on to every destination's proxy.
func (f *forwardProxy) changed(s *rules.Set) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.ways {
		w.p.changed(s)
	}
}

// close stops listening, ends the connections whose head is being read,
// waits for their goroutines, then closes every destination's proxy.
func (f *forwardProxy) close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	close(f.done)
	for c := range f.heads {
		_ = c.Close()
	}
	f.mu.Unlock()
	err := f.g.Close()
	f.wg.Wait()
	f.mu.Lock()
	ways := f.ways
	f.mu.Unlock()
	var errs []error
	if err != nil && !errors.Is(err, net.ErrClosed) {
		errs = append(errs, err)
	}
	for _, w := range ways {
		if err := w.p.close(); err != nil {
			errs = append(errs, fmt.Errorf("destination %s: %w", w.env.key.addr(), err))
		}
	}
	return errors.Join(errs...)
}

// inFlight sums the destinations' in-flight connections (see drainer).
func (f *forwardProxy) inFlight() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.heads)
	for _, w := range f.ways {
		if d, ok := w.p.(drainer); ok {
			n += d.inFlight()
		}
	}
	return n
}
