package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpchaos/mcpchaos/config"
)

// Limits on scenario variables, checked before any is substituted.
const (
	// MaxVars bounds how many variables one run is given.
	MaxVars = 64
	// MaxVarValue bounds a variable's value in bytes.
	MaxVarValue = 4096
)

// varRE is one use of a variable: {{ var "NAME" }}. varAnyRE is anything
// that starts like one, so that a misspelt use is an error rather than
// text left in the document.
var (
	varRE    = regexp.MustCompile(`\{\{-?\s*var\s+"([A-Za-z_][A-Za-z0-9_]*)"\s*-?\}\}`)
	varAnyRE = regexp.MustCompile(`\{\{-?\s*var\b`)
	varName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// ExpandVars fills a scenario document's {{ var "NAME" }} with vars'
// values before it is parsed: a run's parameters (a server URL, an
// upstream's target, an order id) that only the caller knows. The value is
// put in as written, so it must be YAML where it stands: a URL or a word
// in a plain scalar, or anything inside quotes that it does not contain.
//
// It returns the document and the names it used. A use of a variable
// vars lacks is an error naming it, the file and the line; so is a value
// with a line break or a control character (it would change the
// document's structure). Whether an unused variable is a mistake is the
// caller's call: [ParseVars] says so for one document.
func ExpandVars(name string, data []byte, vars map[string]string) ([]byte, []string, error) {
	if err := checkVars(vars); err != nil {
		return nil, nil, err
	}
	var used []string
	var errs []error
	lineOf := func(off int) int { return bytes.Count(data[:off], []byte("\n")) + 1 }
	for _, loc := range varAnyRE.FindAllIndex(data, -1) {
		m := varRE.FindSubmatchIndex(data[loc[0]:])
		if m == nil || m[0] != 0 {
			errs = append(errs, &config.Error{File: name, Line: lineOf(loc[0]),
				Msg: `template: a variable is written {{ var "NAME" }}, NAME letters, digits and _`, Err: config.ErrInvalid})
			continue
		}
		v := string(data[loc[0]+m[2] : loc[0]+m[3]])
		if _, ok := vars[v]; !ok {
			errs = append(errs, &config.Error{File: name, Line: lineOf(loc[0]),
				Msg: fmt.Sprintf("variable %q is not set (give it with the run's variables: --var %s=VALUE)", v, v), Err: config.ErrInvalid})
			continue
		}
		if !slices.Contains(used, v) {
			used = append(used, v)
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	out := varRE.ReplaceAllFunc(data, func(m []byte) []byte {
		return []byte(vars[string(varRE.FindSubmatch(m)[1])])
	})
	if len(out) > config.MaxFileSize {
		return nil, nil, &config.Error{File: name, Msg: fmt.Sprintf("is larger than %d bytes once its variables are filled", config.MaxFileSize), Err: config.ErrInvalid}
	}
	return out, used, nil
}

// checkVars bounds the variables and rejects values that would change a
// document's structure.
func checkVars(vars map[string]string) error {
	if len(vars) > MaxVars {
		return fmt.Errorf("%w: %d variables, more than %d", config.ErrInvalid, len(vars), MaxVars)
	}
	for k, v := range vars {
		switch {
		case !varName.MatchString(k):
			return fmt.Errorf("%w: variable name %q: letters, digits and _ only, not starting with a digit", config.ErrInvalid, k)
		case len(v) > MaxVarValue:
			return fmt.Errorf("%w: variable %q: value longer than %d bytes", config.ErrInvalid, k, MaxVarValue)
		case strings.IndexFunc(v, unicode.IsControl) >= 0:
			return fmt.Errorf("%w: variable %q: the value holds a line break or a control character", config.ErrInvalid, k)
		}
	}
	return nil
}

// UnusedVars returns, sorted, the names in vars that used lacks: a
// variable given for a document that never names it is usually a typo.
func UnusedVars(vars map[string]string, used []string) []string {
	var out []string
	for k := range vars {
		if !slices.Contains(used, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ParseVars is [Parse] with variables: it fills the
// document's {{ var "NAME" }} from vars first, and a variable the document
// does not use is an error too.
func ParseVars(name string, data []byte, vars map[string]string) (*Scenario, error) {
	data, used, err := ExpandVars(name, data, vars)
	if err != nil {
		return nil, err
	}
	if u := UnusedVars(vars, used); len(u) > 0 {
		return nil, &config.Error{File: name, Msg: fmt.Sprintf("variable %q is given but the scenario never uses it ({{ var %q }})", u[0], u[0]), Err: config.ErrInvalid}
	}
	return Parse(name, data)
}

// ReadFile reads a scenario file, bounded by config.MaxFileSize.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &config.Error{File: path, Msg: err.Error(), Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, config.MaxFileSize+1))
	if err != nil {
		return nil, &config.Error{File: path, Msg: err.Error(), Err: err}
	}
	if len(data) > config.MaxFileSize {
		return nil, &config.Error{File: path, Msg: fmt.Sprintf("is larger than %d bytes", config.MaxFileSize), Err: config.ErrInvalid}
	}
	return data, nil
}
