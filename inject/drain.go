package inject

// drainer is what [Registry.Shutdown] asks a proxy while it drains: how
// many of its connections still carry traffic that closing would cut.
type drainer interface {
	inFlight() int
}

// inFlight counts the HTTP proxy's client connections in the middle of
// an exchange: between requests a connection is idle and closing it
// loses nothing. An upgraded (hijacked) connection is a tunnel with no
// end in sight, so it is not waited for, as http.Server.Shutdown does not.
func (p *httpProxy) inFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for c := range p.conns {
		if !c.idle.Load() && !c.hijacked.Load() && !c.ended.Load() {
			n++
		}
	}
	return n
}

// inFlight counts the TCP proxy's open connections: a byte stream has
// no boundary at which closing it is safe, so each is given until the
// grace period ends to finish on its own.
func (p *tcpProxy) inFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}
