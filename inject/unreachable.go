package inject

// Unreachable makes the upstream look dead. Mode refuse acts on dials,
// decided per dial (see refuser): while a rule refuses every dial alike
// the proxy stops listening, so a dial fails with "connection refused"
// exactly as a dead host's port would, and the connections already open
// are reset; a rule that picks dials (limit, probability, conn, request)
// has each dial it picks accepted and reset before anything is read. Its
// rule cannot read a request's fields. Mode blackhole accepts and never
// answers: nothing reaches the upstream until the rule goes away.
type Unreachable struct {
	Mode string `json:"mode,omitempty" choices:"refuse,blackhole" doc:"refuse new dials, or accept and never answer"`
}

func unreachableKind() KindInfo {
	return KindInfo{
		Name: "unreachable", Summary: "refuse new connections (stop listening) or accept and never answer", TCP: true, HTTP: true,
		New: func() Fault { return &Unreachable{Mode: "refuse"} },
		Behavior: []Behavior{
			{"", "", "`refuse`: decided per dial. A rule that refuses every dial alike (no `limit`, no `probability`, a `when` that does not read `conn` or `request`) closes the listening socket while it applies: a new dial fails with *connection refused* exactly as a dead port's would, and connections already open are reset. Any other refuse rule keeps listening (`limit` and `probability` count dials): each dial it picks is accepted and reset before a byte is read, so the client sees a reset at or just after connect, with no reply; nothing reaches the upstream, but the client cannot tell whether its request was sent (the event's `server_knows` is false). `blackhole`: accepts and never answers; nothing reaches the upstream until the rule goes away, then the held bytes flow."},
		},
		Examples: []map[string]any{{"mode": "refuse"}, {"mode": "blackhole"}},
	}
}

// effect implements [effecter]. A dial refused by a closed socket proves
// nothing was sent; one refused per dial (accepted, then reset) is not
// sent either, but proves nothing to the client, so refuser's per-dial
// event clears ServerKnows. A blackhole hangs the server like a timeout.
func (f *Unreachable) effect(string) Effect {
	if f.Refuses() {
		return Effect{Outcome: OutcomeNotSent, ServerKnows: true}
	}
	return Effect{Outcome: OutcomeUnknown}
}

// Kind implements [Fault].
func (*Unreachable) Kind() string { return "unreachable" }

// Refuses implements [ConnectFault].
func (f *Unreachable) Refuses() bool { return f.Mode == "refuse" }

// Accept implements [ConnectFault]: a blackholed connection waits. The
// proxies decide refusal before a connection exists, so mode refuse never
// gets here; if it did, the connection is reset.
func (f *Unreachable) Accept(s Stream) error { return f.stall(s) }

// Chunk implements [StreamFault].
func (f *Unreachable) Chunk(s Stream, p []byte) error {
	if err := f.stall(s); err != nil {
		return err
	}
	return s.Write(p)
}

func (f *Unreachable) stall(s Stream) error {
	if f.Refuses() {
		_ = s.Reset()
		return ErrConnEnded
	}
	if _, err := s.Hold(0); err != nil {
		return err
	}
	return nil
}

// Exchange implements [ExchangeFault].
func (f *Unreachable) Exchange(x Exchange) error {
	if f.Refuses() {
		_ = x.Reset()
		return ErrConnEnded
	}
	if _, err := x.Hold(0); err != nil {
		return err
	}
	return nil // healed: forward as usual
}
