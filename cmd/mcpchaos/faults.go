package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
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

// params renders a kind's default parameters as "name=value" pairs.
func params(f inject.Fault) string {
	raw, _ := json.Marshal(f)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%s=%v", k, m[k])
	}
	return strings.Join(out, " ")
}
