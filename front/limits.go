package front

import "time"

// Limits bound what a front parses and keeps. The zero value means the
// defaults below.
type Limits struct {
	// MaxFrame is the largest frame (a stdio line, an HTTP body, an SSE
	// event) a front reads; a larger one passes through unread and
	// unrecorded. Default 4 MiB.
	MaxFrame int
	// MaxOpen is how many calls a session may have open; a call beyond it
	// passes through unrecorded (until CallTimeout frees room). Default
	// 256.
	MaxOpen int
	// MaxKeys is how many distinct (tool, arguments) pairs a session
	// counts attempts of; beyond it a new pair's Attempt is 0. Default
	// 4096.
	MaxKeys int
	// MaxText bounds a call's Text and Structured, each. Default 64 KiB,
	// what the reader reads.
	MaxText int
	// MaxArgs bounds a call's arguments, as JSON; larger ones are counted
	// (Attempt) but not kept. Default 16 KiB.
	MaxArgs int
	// MaxSessions is how many sessions an HTTP front tracks at once (the
	// least recently active is ended to make room) and a [Recorder]
	// remembers. Default 1024.
	MaxSessions int
	// MaxBuffered is how many bytes of request bodies an HTTP front
	// holds at once to read them (each holds up to MaxFrame while it
	// arrives); a request beyond it passes through unread, so that many
	// slow clients cannot make the front hold MaxFrame each. Default
	// 16 × MaxFrame.
	MaxBuffered int64
	// CallTimeout ends a call that got no reply for this long
	// (no_response), when its session next sees traffic from the client.
	// Default 10 minutes.
	CallTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxFrame, 4<<20)
	def(&l.MaxOpen, 256)
	def(&l.MaxKeys, 4096)
	def(&l.MaxText, 64<<10)
	def(&l.MaxArgs, 16<<10)
	def(&l.MaxSessions, 1024)
	if l.MaxBuffered <= 0 {
		l.MaxBuffered = 16 * int64(l.MaxFrame)
	}
	if l.CallTimeout <= 0 {
		l.CallTimeout = 10 * time.Minute
	}
	return l
}
