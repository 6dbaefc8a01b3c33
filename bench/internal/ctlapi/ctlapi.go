// Package ctlapi is the wire format of the mcpchaos-proxy program's
// control server, shared by the program and the harness.
package ctlapi

// Rule is the body of PUT /rules/{name}.
type Rule struct {
	// Upstream is the upstream the rule applies to.
	Upstream string `json:"upstream"`
	// Kind and Params are the fault, as in a config file.
	Kind   string         `json:"kind"`
	Params map[string]any `json:"params,omitempty"`
}

// Took answers PUT /rules/{name}: how long Registry.PutRule took inside
// the proxy process, in nanoseconds.
type Took struct {
	Nanos int64 `json:"nanos"`
}
