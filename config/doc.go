// Package config reads the YAML documents that declare upstreams and rules:
// the file given to `mcpchaos serve --config FILE`, and the upstreams and
// rules sections of a scenario.
//
// Every error is a *[Error] that names the file, the line and the field
// ("shipping.yaml:14: rules[0].fault.delay: ..."), including the errors
// that only the rule compiler or the fault layer can detect: a "when"
// expression that does not compile is reported at the line and column of
// the mistake, a bad fault parameter at the parameter's line. Unknown
// fields are errors, so a typo never silently disables a fault.
//
// The YAML is read into goccy/go-yaml's AST rather than decoded into
// structs: the AST keeps each value's position, and [Node] walks it while
// tracking the field path. [Node] is exported so that the scenario parser
// can decode its own sections with the same errors.
package config
