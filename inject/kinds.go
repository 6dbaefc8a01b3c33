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

// KindInfo is the specification of a fault kind: everything the
// documentation, `mcpchaos faults`, the API and the dashboard say about it
// comes from here, and the conformance tests hold the proxies to it. Each
// kind writes its own in its file (latencyKind in latency.go, ...); its
// parameters and their bounds are the tags of its parameter struct
// ([Params]), its outcome its effect method ([EffectOf]).
type KindInfo struct {
	// Name is the kind as written in rules: "latency", "timeout", ...
	Name string
	// Summary is one line for help texts and the API.
	Summary string
	// TCP and HTTP report which proxies the kind applies to; MCP that it
	// applies to MCP fronts (protocol mcp, package front).
	TCP, HTTP, MCP bool
	// New returns the kind's parameter struct with its defaults set; the
	// rule's parameters are decoded into it.
	New func() Fault
	// Behavior says what the kind does, per protocol and direction.
	Behavior []Behavior
	// Examples are the parameter sets whose outcome the documentation
	// tabulates: one per distinct outcome at least.
	Examples []map[string]any
}

// Behavior is what a kind does on one protocol ("" for both), for one
// direction ("" for any).
type Behavior struct {
	Protocol  string
	Direction Direction
	Text      string
}

// Kinds returns every fault kind, in documentation order. It is the one
// place a kind is registered.
func Kinds() []KindInfo {
	return []KindInfo{latencyKind(), timeoutKind(), unreachableKind(), partialWriteKind(),
		responseLostKind(), httpErrorKind(), resetKind(), bandwidthKind(), tamperKind()}
}

// KindNames returns the names of [Kinds], in the same order.
func KindNames() []string {
	names := make([]string, 0, 9)
	for _, k := range Kinds() {
		names = append(names, k.Name)
	}
	return names
}

// Protocols lists the protocols k applies to.
func (k KindInfo) Protocols() []string {
	var out []string
	if k.TCP {
		out = append(out, ProtocolTCP)
	}
	if k.HTTP {
		out = append(out, ProtocolHTTP)
	}
	if k.MCP {
		out = append(out, ProtocolMCP)
	}
	return out
}

// AppliesTo reports whether k can act on an upstream of protocol.
func (k KindInfo) AppliesTo(protocol string) bool {
	switch protocol {
	case ProtocolTCP:
		return k.TCP
	case ProtocolHTTP:
		return k.HTTP
	case ProtocolMCP:
		return k.MCP
	}
	return false
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
// themselves after decoding, beyond what their parameters' tags say.
type validator interface {
	validate() error
}

// DefaultMaxDuration caps every duration parameter unless [Limits] says
// otherwise: a fault that holds or delays for longer is a mistake, and a
// mistake that would outlive the game day.
const DefaultMaxDuration = time.Hour

// Limits bounds what a fault may ask for. The zero value is the default.
type Limits struct {
	// MaxDuration caps delay, jitter, close_after and every other
	// duration parameter; zero means DefaultMaxDuration.
	MaxDuration time.Duration
}

func (l Limits) maxDuration() time.Duration {
	if l.MaxDuration <= 0 {
		return DefaultMaxDuration
	}
	return l.MaxDuration
}

// NewParser returns the [rules.ParseFault] that turns a spec into a
// [Fault] within l. Errors are *rules.FieldError naming the parameter
// ("fault.bytes").
func NewParser(l Limits) rules.ParseFault {
	return func(spec rules.FaultSpec) (any, error) { return l.parse(spec) }
}

// ParseFault parses with the default [Limits].
func ParseFault(spec rules.FaultSpec) (any, error) { return Limits{}.parse(spec) }

func (l Limits) parse(spec rules.FaultSpec) (any, error) {
	k, ok := Kind(spec.Kind)
	if !ok {
		return nil, &rules.FieldError{Field: "fault.kind", Msg: fmt.Sprintf("%q is not a fault kind (one of: %s)", spec.Kind, strings.Join(KindNames(), ", "))}
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
	if err := l.checkParams(f); err != nil {
		return nil, err
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

func (d Duration) d() time.Duration { return time.Duration(d) }
