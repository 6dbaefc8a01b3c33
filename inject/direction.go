package inject

// directed is a fault that acts on one direction of traffic (or both).
// The proxies filter by it, as Toxiproxy does: such a fault sees only the
// chunks of its direction, and the proxy forwards the other direction
// itself, on its fast path when nothing else applies. A fault that is not
// directed (unreachable) sees both.
type directed interface {
	direction() Direction
}

func (f *Latency) direction() Direction      { return f.Direction }
func (f *Timeout) direction() Direction      { return f.Direction }
func (f *PartialWrite) direction() Direction { return f.Direction }
func (f *Reset) direction() Direction        { return f.Direction }
func (f *Bandwidth) direction() Direction    { return f.Direction }

// ResponseLost acts on replies only: requests reach the upstream whole.
func (f *ResponseLost) direction() Direction { return Response }

// actsOn reports whether fault f acts on bytes flowing in dir (Request or
// Response).
func actsOn(f any, dir Direction) bool {
	if d, ok := f.(directed); ok {
		return d.direction().covers(dir)
	}
	return true
}
