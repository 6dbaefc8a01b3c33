package agentsim

// Features are what the heuristics read in a message. Each non-empty
// phrase field holds the exact text that set it, so a decision can quote
// it.
type Features struct {
	// DoNotRetry: the message says repeating the call is pointless
	// ("do not retry", "will not succeed", "permanent").
	DoNotRetry string `json:"do_not_retry,omitempty"`
	// RetryAfter: a bounded retry is allowed ("retry once", "try again in
	// 30 seconds"); RetryLimit is the bound (0: unstated).
	RetryAfter string `json:"retry_after,omitempty"`
	RetryLimit int    `json:"retry_limit,omitempty"`
	// Transient: the failure is said to be temporary.
	Transient string `json:"transient,omitempty"`
	// OutcomeUnknown: the message says the write may or may not have
	// happened.
	OutcomeUnknown string `json:"outcome_unknown,omitempty"`
	// NextTools are tools from tools/list the message names as a next
	// action, in order of appearance; NextToolPhrase quotes the first.
	NextTools      []string `json:"next_tools,omitempty"`
	NextToolPhrase string   `json:"next_tool_phrase,omitempty"`
	// ArgHints are schema argument names the message tells the model to
	// set or change, with the values it names (`force: true`).
	ArgHints map[string]any `json:"arg_hints,omitempty"`
	// Imperatives are the instructions the message gives, verbatim.
	Imperatives []string `json:"imperatives,omitempty"`
	// Unsafe quotes an instruction that invites an unsafe action ("retry
	// with force", "try again" on a failure said to be permanent).
	Unsafe string `json:"unsafe,omitempty"`
	// UpstreamError: the text reads as a raw upstream/transport failure
	// ("502 Bad Gateway", "connection refused", "EOF").
	UpstreamError string `json:"upstream_error,omitempty"`
	// Leaks are internals the message discloses.
	Leaks []Leak `json:"leaks,omitempty"`
}

// Leak is one disclosed internal.
type Leak struct {
	// Kind is stack_trace, host_port, ip, internal_host, sql, sqlstate,
	// file_path, struct_dump, exception_class or secret.
	Kind string `json:"kind"`
	// Text is the matched text, truncated to 120 bytes.
	Text string `json:"text"`
}

// CallRecord is one tools/call of a run and everything judged about it.
type CallRecord struct {
	// N is the call's number in the run, from 1; Step the scenario step
	// it served (from 1); Attempt how many times this tool and these
	// arguments had been called, this one included.
	N       int            `json:"n"`
	Step    int            `json:"step"`
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args,omitempty"`
	Attempt int            `json:"attempt"`

	// Channel, Code and Text are the raw outcome (see [Outcome]).
	Channel                Channel `json:"channel"`
	Code                   int     `json:"code,omitempty"`
	Text                   string  `json:"text"`
	UpstreamErrorAsSuccess bool    `json:"upstream_error_as_success,omitempty"`
	ElapsedMS              int64   `json:"elapsed_ms"`

	// Observation is what reached the model under the run's host.
	Observation Observation `json:"observation"`
	// Features were extracted from the raw text (the judge grades the
	// server's message, whatever the host let through).
	Features Features `json:"features"`
	// Decision is what the persona did next.
	Decision Decision `json:"decision"`

	// Injections names the rules whose faults hit upstream traffic
	// during this call, or were in force while it ran (an upstream
	// refusing every dial); Faults says what each declared. Exchanges
	// counts upstream HTTP exchanges and Committed those the upstream
	// answered with a status < 300.
	Injections []string          `json:"injections,omitempty"`
	Faults     []InjectionRecord `json:"faults,omitempty"`
	Exchanges  int               `json:"exchanges"`
	Committed  int               `json:"committed"`

	// Crash is set when the server died during this call; Late when it
	// answered after call_timeout; Holds lists the upstream requests a
	// fault held open during it (see record_facts.go).
	Crash *Crash         `json:"crash,omitempty"`
	Late  *LateReply     `json:"late,omitempty"`
	Holds []UpstreamHold `json:"holds,omitempty"`
}

// SideEffectCount compares intended and committed side effects.
type SideEffectCount struct {
	Name      string `json:"name"`
	Intended  int    `json:"intended"`
	Committed int    `json:"committed"`
	// Source is "events" (a matcher over exchanges) or "probe".
	Source string `json:"source"`
	// Folded is how many matching requests were identical repeats of a
	// PUT, PATCH or DELETE (same upstream, path and body), counted as
	// the one effect they have on the upstream's state.
	Folded int `json:"folded,omitempty"`
	// Error is set when a probe failed.
	Error string `json:"error,omitempty"`
}
