package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/mcpchaos/mcpchaos/inject"
)

func runFaults(_ context.Context, args []string, io stdio) int {
	fs := newFlags("faults", "", "List the fault kinds, the protocols they apply to and their parameters with defaults.", io)
	if done, code := parse(fs, args, io); done {
		return code
	}
	tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tPROTOCOLS\tPARAMETERS (defaults)\tWHAT IT DOES")
	for _, k := range inject.Kinds() {
		var protos []string
		if k.TCP {
			protos = append(protos, "tcp")
		}
		if k.HTTP {
			protos = append(protos, "http")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Name, strings.Join(protos, ","), params(k.New()), k.Summary)
	}
	if err := tw.Flush(); err != nil {
		return exitFailed
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
