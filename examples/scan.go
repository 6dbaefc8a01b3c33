package examples

// ScanFault is one fault of the default matrix of `mcpchaos scan`: a
// name for its cells, the fault as a rule writes it, and whether tools
// that write and tools that only read are crossed with it.
type ScanFault struct {
	Name        string
	Fault       map[string]any
	Write, Read bool
}

// ScanFaults returns the faults `mcpchaos scan` crosses each tool with
// unless --faults says otherwise: a tool that writes meets every way a
// write can end ambiguously or fail; a tool that only reads meets the
// two ways a dependency goes away. The kinds are inject's; a test holds
// each to its specification.
func ScanFaults() []ScanFault {
	return []ScanFault{
		{Name: "response_lost", Fault: map[string]any{"kind": "response_lost"}, Write: true},
		{Name: "timeout", Fault: map[string]any{"kind": "timeout"}, Write: true, Read: true},
		{Name: "unreachable", Fault: map[string]any{"kind": "unreachable"}, Write: true, Read: true},
		{Name: "http_error 503", Fault: map[string]any{"kind": "http_error", "status": 503}, Write: true},
		{Name: "partial_write", Fault: map[string]any{"kind": "partial_write", "direction": "response", "bytes": 20, "then": "reset"}, Write: true},
	}
}
