package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

func runFault(ctx context.Context, args []string, std stdio) int {
	return dispatch(ctx, "fault", []subcommand{
		{name: "list", synopsis: "[--upstream NAME]", summary: "list faults with their state, hits and expiry", run: faultList},
		{name: "add", synopsis: "NAME --kind KIND [--upstream U] [--param k=v]... [--when EXPR] [--ttl D] [flags]", summary: "add a fault (--replace: create or replace)", run: faultAdd},
		{name: "rm", synopsis: "NAME", summary: "remove a fault", run: faultRm},
		{name: "enable", synopsis: "NAME", summary: "enable a fault (its hits and expiry stay)", run: faultToggle(true)},
		{name: "disable", synopsis: "NAME", summary: "disable a fault without removing it", run: faultToggle(false)},
		{name: "extend", synopsis: "NAME --ttl D", summary: "make a fault expire D from now (its hits stay)", run: faultExtend},
		{name: "reset", synopsis: "NAME", summary: "set a fault's hit count to 0, so its --limit counts again", run: faultReset},
	}, args, std)
}

func faultList(c commandContext, args []string) int {
	a := newAPICommand(c, "[--upstream NAME]", "List the faults with their state, hit count and time left.")
	upstream := a.fs.String("upstream", "", "only this upstream's faults")
	cl, _, code := a.start(args, 0)
	if cl == nil {
		return code
	}
	fl, err := cl.Faults(c.ctx, *upstream)
	return a.reply(err, api.FaultList{Faults: fl}, func(w io.Writer) int { return printFaults(w, fl...) })
}

// faultAddFlags are the fields of a fault on the command line.
type faultAddFlags struct {
	upstream, kind, when, ttl, file string
	params                          []string
	probability                     float64
	limit                           int
	disabled, replace               bool
}

func faultAdd(c commandContext, args []string) int {
	a := newAPICommand(c, "NAME --kind KIND [flags]", `
Add a fault: when the --when expression holds on traffic of --upstream
(default: every upstream), inject --kind with its --param values (see
"mcpchaos faults"). Values that read as JSON (numbers, true, objects) are
sent as such, others as strings: --param delay=800ms --param status=503.
--file reads the whole fault as JSON instead (docs/api.md).`)
	fs := a.fs
	var ff faultAddFlags
	fs.StringVar(&ff.upstream, "upstream", "", "the upstream it applies to (default: every upstream)")
	fs.StringVar(&ff.kind, "kind", "", "fault kind: "+strings.Join(inject.KindNames(), ", ")+" (see: mcpchaos faults)")
	fs.Func("param", "a fault parameter, KEY=VALUE (repeatable)", func(v string) error { ff.params = append(ff.params, v); return nil })
	fs.StringVar(&ff.when, "when", "", `condition (expr-lang), e.g. 'method == "POST"' (default: always)`)
	fs.Float64Var(&ff.probability, "probability", 1, "chance in [0, 1] that a matching connection or request is affected")
	fs.IntVar(&ff.limit, "limit", 0, "stop after this many injections (0: no cap)")
	fs.StringVar(&ff.ttl, "ttl", "", "how long the fault lives, e.g. 30s or 10m (default: the server's)")
	fs.BoolVar(&ff.disabled, "disabled", false, "add it disabled")
	fs.BoolVar(&ff.replace, "replace", false, "replace a fault of the same name instead of failing")
	fs.StringVar(&ff.file, "file", "", "read the fault as JSON from this file (- for standard input)")
	pos, done, code := parseInterleaved(fs, args, c.std)
	if done {
		return code
	}
	if ff.file == "" && !needArgs(c, fs, pos, 1) {
		return exitUsage
	}
	req, err := ff.request(pos, c.std.in)
	if err != nil {
		fmt.Fprintf(c.std.err, "mcpchaos %s: %v\n", c.name, err)
		return exitUsage
	}
	cl, code := a.client()
	if cl == nil {
		return code
	}
	var f api.Fault
	if ff.replace {
		f, _, err = cl.PutFault(c.ctx, req)
	} else {
		f, err = cl.AddFault(c.ctx, req)
	}
	return a.reply(err, f, func(w io.Writer) int { return printFaults(w, f) })
}

// request builds the API request from the flags or --file.
func (ff *faultAddFlags) request(pos []string, stdin io.Reader) (api.FaultRequest, error) {
	var req api.FaultRequest
	if ff.file != "" {
		var data []byte
		var err error
		if ff.file == "-" {
			data, err = io.ReadAll(io.LimitReader(stdin, 1<<20))
		} else {
			data, err = os.ReadFile(ff.file)
		}
		if err != nil {
			return req, err
		}
		if err := json.Unmarshal(data, &req); err != nil {
			return req, fmt.Errorf("--file: %w", err)
		}
		if len(pos) == 1 {
			req.Name = pos[0]
		}
		return req, nil
	}
	if ff.kind == "" {
		return req, fmt.Errorf("--kind is required (see: mcpchaos faults)")
	}
	params := map[string]any{}
	for _, p := range ff.params {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return req, fmt.Errorf("--param %q: write KEY=VALUE", p)
		}
		var jv any
		if json.Unmarshal([]byte(v), &jv) == nil {
			params[k] = jv
		} else {
			params[k] = v
		}
	}
	req = api.FaultRequest{Name: pos[0], Upstream: ff.upstream, When: ff.when, Limit: ff.limit, TTL: ff.ttl,
		Fault: api.FaultSpec{Kind: ff.kind, Params: params}}
	if ff.probability != 1 {
		req.Probability = &ff.probability
	}
	if ff.disabled {
		f := false
		req.Enabled = &f
	}
	return req, nil
}

func faultRm(c commandContext, args []string) int {
	a := newAPICommand(c, "NAME", "Remove a fault; connections it held heal at once.")
	cl, pos, code := a.start(args, 1)
	if cl == nil {
		return code
	}
	if err := cl.RemoveFault(c.ctx, pos[0]); err != nil {
		return a.fail(err)
	}
	// --json changes nothing here: the API answers 204 No Content.
	fmt.Fprintf(c.std.out, "removed fault %s\n", pos[0])
	return exitOK
}

func faultToggle(enable bool) func(commandContext, []string) int {
	return func(c commandContext, args []string) int {
		a := newAPICommand(c, "NAME", "Enable or disable a fault; its hit count and expiry stay.")
		cl, pos, code := a.start(args, 1)
		if cl == nil {
			return code
		}
		f, err := cl.PatchFault(c.ctx, pos[0], api.FaultPatch{Enabled: &enable})
		return a.reply(err, f, func(w io.Writer) int { return printFaults(w, f) })
	}
}

func faultExtend(c commandContext, args []string) int {
	a := newAPICommand(c, "NAME --ttl D", `
Make a fault expire D from now (at most the server's --max-ttl), whatever
its expiry was; its hit count stays. Adding the fault again with
--replace does not extend it: a new --ttl counts from when it was first
added.`)
	ttl := a.fs.String("ttl", "", "how long from now the fault lives, e.g. 10m (required)")
	pos, done, code := parseInterleaved(a.fs, args, c.std)
	if done {
		return code
	}
	if !needArgs(c, a.fs, pos, 1) {
		return exitUsage
	}
	if *ttl == "" {
		fmt.Fprintf(c.std.err, "mcpchaos %s: --ttl is required, e.g. --ttl 10m\n", c.name)
		return exitUsage
	}
	cl, code := a.client()
	if cl == nil {
		return code
	}
	f, err := cl.ExtendFault(c.ctx, pos[0], *ttl)
	return a.reply(err, f, func(w io.Writer) int { return printFaults(w, f) })
}

func faultReset(c commandContext, args []string) int {
	a := newAPICommand(c, "NAME", "Set a fault's hit count to 0: a fault that reached its --limit injects again. Its expiry stays.")
	cl, pos, code := a.start(args, 1)
	if cl == nil {
		return code
	}
	f, err := cl.ResetFault(c.ctx, pos[0])
	return a.reply(err, f, func(w io.Writer) int { return printFaults(w, f) })
}

func printFaults(w io.Writer, fl ...api.Fault) int {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tUPSTREAM\tKIND\tSTATE\tHITS\tEXPIRES IN\tWHEN")
	for _, f := range fl {
		up, exp, when := f.Upstream, "never", f.When
		if up == "" {
			up = "*"
		}
		if f.ExpiresInSeconds != nil {
			exp = fmt.Sprintf("%.0fs", *f.ExpiresInSeconds)
		}
		if when == "" {
			when = "always"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", f.Name, up, f.Fault.Kind, f.State, f.Hits, exp, when)
	}
	if err := tw.Flush(); err != nil {
		return exitFailed
	}
	return exitOK
}
