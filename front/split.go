package front

// A splitter cuts a response body into the units a front reads: SSE
// events, or a whole JSON body. feed takes bytes as they arrive; unit is
// called with each complete unit of at most max bytes, raw with bytes
// that belong to no unit it reads (a unit too long), in stream order.
type splitter interface {
	feed(p []byte, unit, raw func([]byte))
	// end is called at the end of the body.
	end(unit, raw func([]byte))
}

// wholeSplit makes the whole body one unit, if it is at most max bytes.
type wholeSplit struct {
	max  int
	buf  []byte
	long bool
}

func (w *wholeSplit) feed(p []byte, _, raw func([]byte)) {
	if w.long {
		raw(p)
		return
	}
	if len(w.buf)+len(p) > w.max {
		w.long = true
		raw(w.buf)
		raw(p)
		w.buf = nil
		return
	}
	w.buf = append(w.buf, p...)
}

func (w *wholeSplit) end(unit, _ func([]byte)) {
	if !w.long {
		unit(w.buf)
	}
}

// sseSplit cuts a text/event-stream into events: the bytes up to and
// including the blank line that ends each. Lines end with CRLF, LF or CR
// (a CR at the end of one feed may be followed by the LF in the next).
type sseSplit struct {
	max     int
	buf     []byte // the current event so far
	long    bool   // the current event went over max: its bytes pass raw
	lineLen int    // bytes of the current line, its end excluded
	lastCR  bool   // the previous byte was a CR ending a line
}

func (s *sseSplit) feed(p []byte, unit, raw func([]byte)) {
	start := 0 // p[start:i] is not yet in buf or raw
	flush := func(i int) {
		if s.long {
			raw(p[start:i])
		} else {
			s.buf = append(s.buf, p[start:i]...)
		}
		start = i
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\n' && s.lastCR {
			s.lastCR = false // the LF of a CRLF: the line already ended
			continue
		}
		s.lastCR = c == '\r'
		if c != '\n' && c != '\r' {
			s.lineLen++
			continue
		}
		blank := s.lineLen == 0
		s.lineLen = 0
		if !blank {
			continue
		}
		// The event ends with this line end; a CR may still be followed
		// by an LF, which then joins the next event's bytes (harmless:
		// an empty line ending nothing).
		flush(i + 1)
		if !s.long {
			unit(s.buf)
		}
		s.buf, s.long = s.buf[:0], false
	}
	flush(len(p))
	if !s.long && len(s.buf) > s.max {
		s.long = true
		raw(s.buf)
		s.buf = s.buf[:0]
	}
}

func (s *sseSplit) end(_, raw func([]byte)) {
	if len(s.buf) > 0 {
		raw(s.buf) // an event the stream never ended: nothing to read
		s.buf = s.buf[:0]
	}
}
