package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpchaos/mcpchaos/inject"
)

const faultsHelp = `
List the fault kinds, the protocols they apply to and their parameters with
defaults; then, for each kind (or only the kinds named), what it does per
protocol and direction, the values each parameter accepts, and the outcome
it leaves the server with (docs/faults.md says the same).`

func runFaults(_ context.Context, args []string, io stdio) int {
	fs := newFlags("faults", "[KIND...]", faultsHelp, io)
	if done, code := parse(fs, args, io); done {
		return code
	}
	kinds := inject.Kinds()
	if fs.NArg() > 0 {
		kinds = kinds[:0]
		for _, name := range fs.Args() {
			k, ok := inject.Kind(name)
			if !ok {
				fmt.Fprintf(io.err, "mcpchaos faults: %q is not a fault kind (one of: %s)\n", name, strings.Join(inject.KindNames(), ", "))
				return exitUsage
			}
			kinds = append(kinds, k)
		}
	}
	tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tPROTOCOLS\tPARAMETERS (defaults)\tWHAT IT DOES")
	for _, k := range kinds {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Name, strings.Join(k.Protocols(), ","), params(k.New()), k.Summary)
	}
	if err := tw.Flush(); err != nil {
		return exitFailed
	}
	for _, k := range kinds {
		if err := describeKind(io.out, k); err != nil {
			return exitFailed
		}
	}
	return exitOK
}

// params renders a kind's parameters as "name=default" ("name" alone
// when the default is the type's zero value).
func params(f inject.Fault) string {
	var out []string
	for _, p := range inject.Params(f) {
		if p.Default != nil {
			out = append(out, fmt.Sprintf("%s=%v", p.Name, p.Default))
		} else {
			out = append(out, p.Name)
		}
	}
	return strings.Join(out, " ")
}

// describeKind prints k's specification: behavior, parameters with what
// they accept, and its outcome per example and protocol.
func describeKind(w io.Writer, k inject.KindInfo) error {
	fmt.Fprintf(w, "\n%s (%s)\n", k.Name, strings.Join(k.Protocols(), ", "))
	for _, b := range k.Behavior {
		scope := strings.TrimSpace(b.Protocol + " " + string(b.Direction))
		if scope != "" {
			scope = "[" + scope + "] "
		}
		fmt.Fprintf(w, "  - %s%s\n", scope, b.Text)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  PARAMETER\tTYPE\tACCEPTS\tWHAT")
	for _, p := range inject.Params(k.New()) {
		accepts := p.Bounds()
		if p.Required {
			accepts = strings.TrimSpace("required " + accepts)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", p.Name, p.Type, accepts, p.Doc)
	}
	fmt.Fprintln(tw, "  WITH\tON\tOUTCOME\tSERVER KNOWS")
	for _, r := range k.OutcomeTable() {
		knows := "no"
		if r.Effect.ServerKnows {
			knows = "yes"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", inject.FormatParams(r.Params), r.Protocol, r.Effect.Outcome, knows)
	}
	return tw.Flush()
}
