package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
)

// reportFlags are the output flags shared by the commands that run a
// matrix and write a report (run, demo, scan).
type reportFlags struct {
	format string
	out    string
	seed   uint64
	failOn string
	// failOnSet: --fail-on was given and overrides every scenario's
	// expect.fail_on.
	failOnSet bool
	// baseline is --baseline's file; base is the report read from it
	// (see loadBaseline), applied by writeReport.
	baseline string
	base     *report.Report
}

// concurrencyUsage is --concurrency's help, for every command that runs
// a matrix.
const concurrencyUsage = "how many runs at once; 0: as many as memory allows (available memory ÷ 2 ÷ 128 MiB a run, at most 64): runs mostly wait on timeouts, not CPU"

// register adds the flags to fs. A --fail-on default already in
// r.failOn (demo's "never") is the flag's default and applies as if
// given; without one, --fail-on overrides each scenario's expect.fail_on
// only when given.
func (r *reportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.format, "format", "text", "report format: "+formatList("or"))
	fs.StringVar(&r.out, "out", "", "write the report to this file instead of standard output")
	fs.Uint64Var(&r.seed, "seed", 1, "seed for every random decision; the same seed replays the same run")
	if r.failOn != "" {
		fs.StringVar(&r.failOn, "fail-on", r.failOn, "exit 1 when a finding is at least this severe: info, warning, error or never")
	} else {
		fs.StringVar(&r.failOn, "fail-on", "error", "exit 1 when a finding is at least this severe: info, warning, error or never (when not given: each scenario's expect.fail_on, itself error by default)")
	}
	fs.StringVar(&r.baseline, "baseline", "", "an earlier report of this matrix (--format json): only findings it does not have count, for the exit code and the summary; the report marks each finding new or known and lists those gone")
}

// outputs returns the parsed --fail-on and --format, and reads
// --baseline; ok is false when one is wrong, which is reported after
// prefix ("mcpchaos run").
func (r *reportFlags) outputs(prefix string, std stdio) (failOn judge.Severity, write writeFunc, ok bool) {
	failOn, err := parseSeverity(r.failOn)
	if err == nil {
		write, err = reportWriter(r.format)
	}
	if err == nil {
		err = r.loadBaseline()
	}
	if err != nil {
		fmt.Fprintf(std.err, "%s: %v\n", prefix, err)
		return "", nil, false
	}
	return failOn, write, true
}

// validate checks the flags and reads --baseline before anything runs.
func (r *reportFlags) validate() error {
	if _, err := reportWriter(r.format); err != nil {
		return err
	}
	if _, err := parseSeverity(r.failOn); err != nil {
		return err
	}
	return r.loadBaseline()
}

// loadBaseline reads --baseline once; an error names the file.
func (r *reportFlags) loadBaseline() error {
	if r.baseline == "" || r.base != nil {
		return nil
	}
	f, err := os.Open(r.baseline)
	if err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	defer f.Close()
	base, err := report.ReadBaseline(f)
	if err != nil {
		return fmt.Errorf("--baseline %s: %w", r.baseline, err)
	}
	r.base = &base
	return nil
}

type writeFunc func(r report.Report, w io.Writer, color bool) error

// reportFormats are the report formats, in the order help lists them:
// the one place that knows them.
var reportFormats = []struct {
	name, alias string
	write       writeFunc
}{
	{"text", "", func(r report.Report, w io.Writer, color bool) error {
		return r.WriteText(w, report.TextOptions{Color: color})
	}},
	{"json", "", func(r report.Report, w io.Writer, _ bool) error { return r.WriteJSON(w) }},
	{"junit", "", func(r report.Report, w io.Writer, _ bool) error { return r.WriteJUnit(w) }},
	{"markdown", "md", func(r report.Report, w io.Writer, _ bool) error { return r.WriteMarkdown(w) }},
	{"html", "", func(r report.Report, w io.Writer, _ bool) error { return r.WriteHTML(w) }},
}

// formatList is "text, json, junit, markdown <conj> html".
func formatList(conj string) string {
	names := make([]string, len(reportFormats))
	for i, f := range reportFormats {
		names[i] = f.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

func reportWriter(format string) (writeFunc, error) {
	for _, f := range reportFormats {
		if format == f.name || (f.alias != "" && format == f.alias) {
			return f.write, nil
		}
	}
	return nil, fmt.Errorf("--format: %q is not %s", format, formatList("or"))
}

func parseSeverity(s string) (judge.Severity, error) {
	switch s {
	case "never", "none":
		return "", nil
	case "info", "warning", "error":
		return judge.Severity(s), nil
	}
	return "", fmt.Errorf("--fail-on: %q is not info, warning, error or never", s)
}
