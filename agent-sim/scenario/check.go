package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/config"
)

// ErrMismatch marks a scenario that does not fit the server it
// drives: a step or followup names a tool the server does not list, or
// gives arguments that fail the tool's input schema. The scenario is
// wrong, not the server: such a run makes no call and has no finding.
var ErrMismatch = errors.New("the scenario does not fit the server")

// maxListedTools bounds how many tool names an error lists.
const maxListedTools = 20

// Check checks sc's steps and followups against the tools the
// server listed: every tool they name must be listed, and their arguments
// must satisfy its input schema, except for a step marked invalid (its
// input is wrong on purpose). A followup for a step's tool is checked
// merged over that step's arguments, as the persona uses it. It returns
// nil, or every problem found as *config.Error values (file, line, field)
// wrapping ErrMismatch, joined.
func Check(sc *Scenario, tools []transcript.Tool) error {
	byName := make(map[string]transcript.Tool, len(tools))
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		byName[t.Name] = t
		names = append(names, t.Name)
	}
	slices.Sort(names)
	v := &argChecker{schemas: map[string]*jsonschema.Schema{}}
	var errs []error
	fail := func(line int, field, format string, args ...any) {
		errs = append(errs, &config.Error{File: sc.File, Line: line, Field: field,
			Msg: fmt.Sprintf(format, args...), Err: ErrMismatch})
	}
	for i, st := range sc.Steps {
		field := fmt.Sprintf("steps[%d]", i)
		t, ok := byName[st.Tool]
		if !ok {
			fail(st.Line, field+".tool", "%s", unknownTool(st.Tool, names))
			continue
		}
		if st.Invalid {
			continue
		}
		if msg := v.check(t, st.Args); msg != "" {
			fail(st.Line, field+".args", "the arguments for %q fail its input schema: %s (mark the step invalid: true if that is the point)", st.Tool, msg)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sc.Followups)) {
		field, line := "followups."+name, sc.FollowupLines[name]
		t, ok := byName[name]
		if !ok {
			fail(line, field, "%s", unknownTool(name, names))
			continue
		}
		args := sc.Followups[name]
		for _, st := range sc.Steps {
			if st.Tool == name && !st.Invalid {
				args = mergeArgs(st.Args, args)
				break
			}
		}
		if msg := v.check(t, args); msg != "" {
			fail(line, field, "the arguments for %q fail its input schema: %s", name, msg)
		}
	}
	return errors.Join(errs...)
}

// unknownTool says that name is not listed, suggesting the closest
// listed name.
func unknownTool(name string, listed []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the server lists no tool %q", name)
	if s := config.Suggest(name, listed); s != "" {
		fmt.Fprintf(&b, " (did you mean %q?)", s)
	}
	switch {
	case len(listed) == 0:
		b.WriteString("; it lists no tools at all")
	case len(listed) > maxListedTools:
		fmt.Fprintf(&b, "; it lists %s and %d more", strings.Join(listed[:maxListedTools], ", "), len(listed)-maxListedTools)
	default:
		b.WriteString("; it lists " + strings.Join(listed, ", "))
	}
	return b.String()
}

func mergeArgs(base, over map[string]any) map[string]any {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]any{}
	}
	maps.Copy(out, over)
	return out
}

// argChecker validates arguments against tools' input schemas, compiling
// each schema once.
type argChecker struct {
	schemas map[string]*jsonschema.Schema // nil: the schema does not compile
}

// check returns why args fail t's input schema, or "". A schema that does
// not compile is the server's problem, graded elsewhere; it fails no
// scenario.
func (v *argChecker) check(t transcript.Tool, args map[string]any) string {
	sch, ok := v.schemas[t.Name]
	if !ok {
		sch = compileSchema(t.InputSchema)
		v.schemas[t.Name] = sch
	}
	if sch == nil {
		return ""
	}
	// The arguments are checked as the server receives them: as JSON.
	if args == nil {
		args = map[string]any{}
	}
	inst, err := roundTrip(args)
	if err != nil {
		return err.Error()
	}
	var ve *jsonschema.ValidationError
	if err := validate(sch, inst); errors.As(err, &ve) {
		return describeViolation(ve)
	} else if err != nil {
		return err.Error()
	}
	return ""
}

// maxSchemaBytes bounds a schema worth checking against: a tool's input
// schema is a few KiB; a larger one is not compiled.
const maxSchemaBytes = 1 << 20

// validate is sch.Validate, except that a panic (a schema the compiler
// let through but cannot apply) is a schema not checked against: the
// schema is the server's, not the scenario's.
func validate(sch *jsonschema.Schema, v any) (err error) {
	defer func() {
		if recover() != nil {
			err = nil
		}
	}()
	return sch.Validate(v)
}

// compileSchema compiles a listed input schema, or returns nil. No
// reference is loaded from outside the schema: a server's schema must
// not make mcpchaos read a file or the network. The schema is the
// server's, so a panic in the compiler is a schema not checked against,
// not the end of the run.
func compileSchema(schema any) (sch *jsonschema.Schema) {
	if schema == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			sch = nil
		}
	}()
	data, err := json.Marshal(schema)
	if err != nil || len(data) > maxSchemaBytes {
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const loc = "mcpchaos:///input-schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil
	}
	compiled, err := c.Compile(loc)
	if err != nil {
		return nil
	}
	return compiled
}

// noLoader refuses every external reference.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: input schemas may not reference other documents here", url)
}

// roundTrip turns a Go value into JSON as the validator reads it
// (numbers as json.Number).
func roundTrip(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

// describeViolation lists the leaf violations: "args.qty: got string,
// want integer; args: missing property 'order_id'".
func describeViolation(ve *jsonschema.ValidationError) string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		at := "args"
		if len(e.InstanceLocation) > 0 {
			at += "." + strings.Join(e.InstanceLocation, ".")
		}
		// A leaf formats as "at '/qty': got string, want integer".
		msg := e.Error()
		if _, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "at ") {
			msg = rest
		}
		if !slices.Contains(out, at+": "+msg) {
			out = append(out, at+": "+msg)
		}
	}
	walk(ve)
	if len(out) == 0 {
		return ve.Error()
	}
	return strings.Join(out, "; ")
}
