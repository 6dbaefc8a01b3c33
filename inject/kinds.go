package inject

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// KindInfo describes a fault kind.
type KindInfo struct {
	// Name is the kind as written in rules: "latency", "timeout", ...
	Name string
	// Summary is one line for help texts and the API.
	Summary string
	// TCP and HTTP report which proxies the kind applies to.
	TCP, HTTP bool
	// New returns the kind's parameter struct with its defaults set; the
	// rule's parameters are decoded into it.
	New func() Fault
}

// Kinds returns every fault kind, in documentation order. It is the one
// place a kind is registered.
func Kinds() []KindInfo {
	return []KindInfo{
		{Name: "latency", Summary: "delay bytes or requests, with jitter, in either direction", TCP: true, HTTP: true,
			New: func() Fault { return &Latency{Direction: Response} }},
		{Name: "timeout", Summary: "hold the connection or request without answering (bytes held, not dropped)", TCP: true, HTTP: true,
			New: func() Fault { return &Timeout{Direction: Both} }},
		{Name: "unreachable", Summary: "refuse new connections (stop listening) or accept and never answer", TCP: true, HTTP: true,
			New: func() Fault { return &Unreachable{Mode: "refuse"} }},
		{Name: "partial_write", Summary: "cut the request or the response after N bytes, then reset or close", TCP: true, HTTP: true,
			New: func() Fault { return &PartialWrite{Direction: Response, Then: "reset"} }},
		{Name: "response_lost", Summary: "deliver the request, let the upstream commit, never deliver the reply", TCP: true, HTTP: true,
			New: func() Fault { return &ResponseLost{Mode: "hang"} }},
		{Name: "http_error", Summary: "answer with an HTTP status, before or after the upstream", HTTP: true,
			New: func() Fault { return &HTTPError{Status: 503} }},
		{Name: "reset", Summary: "reset the connection (RST) after N bytes", TCP: true, HTTP: true,
			New: func() Fault { return &Reset{Direction: Response} }},
		{Name: "bandwidth", Summary: "limit throughput to a rate in bytes per second", TCP: true, HTTP: true,
			New: func() Fault { return &Bandwidth{Direction: Response} }},
	}
}

// Kind returns the named kind.
func Kind(name string) (KindInfo, bool) {
	for _, k := range Kinds() {
		if k.Name == name {
			return k, true
		}
	}
	return KindInfo{}, false
}

// validator is implemented by fault parameter structs that check
// themselves after decoding.
type validator interface {
	validate() error
}

// ParseFault turns a spec into a [Fault]. It is the [rules.ParseFault] the
// registry's table uses. Errors are *rules.FieldError naming the
// parameter ("fault.bytes").
func ParseFault(spec rules.FaultSpec) (any, error) {
	k, ok := Kind(spec.Kind)
	if !ok {
		names := make([]string, 0, 8)
		for _, k := range Kinds() {
			names = append(names, k.Name)
		}
		return nil, &rules.FieldError{Field: "fault.kind", Msg: fmt.Sprintf("%q is not a fault kind (one of: %s)", spec.Kind, strings.Join(names, ", "))}
	}
	f := k.New()
	if len(spec.Params) > 0 {
		raw, err := json.Marshal(spec.Params)
		if err != nil {
			return nil, &rules.FieldError{Field: "fault", Msg: err.Error(), Err: err}
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(f); err != nil {
			return nil, paramError(k, spec.Params, err)
		}
	}
	if v, ok := f.(validator); ok {
		if err := v.validate(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func paramError(k KindInfo, params map[string]any, err error) error {
	kind := k.Name
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &rules.FieldError{Field: "fault." + te.Field, Msg: fmt.Sprintf("must be a %s, not a %s", te.Type, te.Value), Err: err}
	}
	var de *durationError
	if errors.As(err, &de) {
		return &rules.FieldError{Field: "fault" + durationField(k, params), Msg: de.Error(), Err: err}
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name := strings.Trim(rest, `"`)
		return &rules.FieldError{Field: "fault." + name, Msg: fmt.Sprintf("is not a parameter of %s (see: mcpchaos faults)", kind), Err: err}
	}
	return &rules.FieldError{Field: "fault", Msg: strings.TrimPrefix(msg, "json: "), Err: err}
}

// durationField finds which parameter holds the bad duration: encoding/json
// does not attach the field name to an error returned by UnmarshalJSON. It
// returns ".name", or "" if no single parameter fails on its own.
func durationField(k KindInfo, params map[string]any) string {
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		raw, err := json.Marshal(map[string]any{name: params[name]})
		if err != nil {
			continue
		}
		var de *durationError
		if err := json.Unmarshal(raw, k.New()); errors.As(err, &de) {
			return "." + name
		}
	}
	return ""
}

// Duration is a time.Duration written as a Go duration string ("250ms",
// "2s") in rule parameters.
type Duration time.Duration

type durationError struct{ value string }

func (e *durationError) Error() string {
	return fmt.Sprintf("%s is not a duration (write it like 250ms, 2s or 1m30s)", e.value)
}

// UnmarshalJSON accepts a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return &durationError{value: string(b)}
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return &durationError{value: fmt.Sprintf("%q", s)}
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func checkDirection(d Direction, allowBoth bool) error {
	switch d {
	case Request, Response:
		return nil
	case Both:
		if allowBoth {
			return nil
		}
	}
	want := "request or response"
	if allowBoth {
		want = "request, response or both"
	}
	return &rules.FieldError{Field: "fault.direction", Msg: fmt.Sprintf("must be %s, not %q", want, d)}
}

func checkOneOf(field, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return &rules.FieldError{Field: "fault." + field, Msg: fmt.Sprintf("must be %s, not %q", strings.Join(allowed, " or "), v)}
}

func (d Duration) d() time.Duration { return time.Duration(d) }
