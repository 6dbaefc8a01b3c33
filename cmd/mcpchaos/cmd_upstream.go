package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mcpchaos/mcpchaos/api"
)

func runUpstream(ctx context.Context, args []string, std stdio) int {
	return dispatch(ctx, "upstream", []subcommand{
		{name: "list", synopsis: "[flags]", summary: "list upstreams", run: upstreamList},
		{name: "add", synopsis: "NAME --target ADDR [--protocol tcp|http] [--listen ADDR]", summary: "create an upstream (a proxy)", run: upstreamAdd},
		{name: "rm", synopsis: "NAME", summary: "remove an upstream and its faults", run: upstreamRm},
		{name: "enable", synopsis: "NAME", summary: "reopen a disabled upstream's proxy", run: upstreamToggle(true)},
		{name: "disable", synopsis: "NAME", summary: "stop an upstream's proxy: connections are refused until enable or halt", run: upstreamToggle(false)},
	}, args, std)
}

func upstreamList(c commandContext, args []string) int {
	fs := newFlags(c.name, "[flags]", "List the upstreams of the server at --api.", c.std)
	var af apiFlags
	af.register(fs)
	pos, done, code := parseInterleaved(fs, args, c.std)
	if done {
		return code
	}
	if !needArgs(c, fs, pos, 0) {
		return exitUsage
	}
	cl, err := af.client()
	if err != nil {
		return apiFail(c.std, c.name, err)
	}
	ups, err := cl.Upstreams(c.ctx)
	if err != nil {
		return apiFail(c.std, c.name, err)
	}
	if af.json {
		return printJSON(c.std.out, api.UpstreamList{Upstreams: ups})
	}
	return printUpstreams(c.std.out, ups...)
}

func upstreamAdd(c commandContext, args []string) int {
	fs := newFlags(c.name, "NAME --target ADDR [flags]", `
Create an upstream: a proxy listening on --listen (default: a free loopback
port, printed) in front of --target. Point your MCP server at the proxy.`, c.std)
	var af apiFlags
	af.register(fs)
	target := fs.String("target", "", "the real upstream: host:port, or http://host:port")
	protocol := fs.String("protocol", "tcp", "tcp or http")
	listen := fs.String("listen", "", "the proxy's address (default 127.0.0.1:0: a free port)")
	pos, done, code := parseInterleaved(fs, args, c.std)
	if done {
		return code
	}
	if !needArgs(c, fs, pos, 1) {
		return exitUsage
	}
	cl, err := af.client()
	if err != nil {
		return apiFail(c.std, c.name, err)
	}
	u, err := cl.AddUpstream(c.ctx, api.UpstreamRequest{Name: pos[0], Protocol: *protocol, Listen: *listen, Target: *target})
	if err != nil {
		return apiFail(c.std, c.name, err)
	}
	if af.json {
		return printJSON(c.std.out, u)
	}
	return printUpstreams(c.std.out, u)
}

func upstreamRm(c commandContext, args []string) int {
	fs := newFlags(c.name, "NAME", "Remove an upstream: its proxy stops and its faults are removed.", c.std)
	var af apiFlags
	af.register(fs)
	pos, done, code := parseInterleaved(fs, args, c.std)
	if done {
		return code
	}
	if !needArgs(c, fs, pos, 1) {
		return exitUsage
	}
	cl, err := af.client()
	if err != nil {
		return apiFail(c.std, c.name, err)
	}
	d, err := cl.RemoveUpstream(c.ctx, pos[0])
	if err != nil {
		return apiFail(c.std, c.name, err)
	}
	if af.json {
		return printJSON(c.std.out, d)
	}
	fmt.Fprintf(c.std.out, "removed upstream %s and %d fault(s)\n", d.Name, d.FaultsRemoved)
	return exitOK
}

func upstreamToggle(enable bool) func(commandContext, []string) int {
	return func(c commandContext, args []string) int {
		fs := newFlags(c.name, "NAME", "Enable or disable an upstream's proxy. A disabled upstream refuses connections (no TTL) until enabled or halted.", c.std)
		var af apiFlags
		af.register(fs)
		pos, done, code := parseInterleaved(fs, args, c.std)
		if done {
			return code
		}
		if !needArgs(c, fs, pos, 1) {
			return exitUsage
		}
		cl, err := af.client()
		if err != nil {
			return apiFail(c.std, c.name, err)
		}
		toggle := cl.DisableUpstream
		if enable {
			toggle = cl.EnableUpstream
		}
		u, err := toggle(c.ctx, pos[0])
		if err != nil {
			return apiFail(c.std, c.name, err)
		}
		if af.json {
			return printJSON(c.std.out, u)
		}
		return printUpstreams(c.std.out, u)
	}
}

func printUpstreams(w io.Writer, ups ...api.Upstream) int {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPROTOCOL\tLISTEN\tTARGET\tENABLED\tFAULTS")
	for _, u := range ups {
		state := "yes"
		switch {
		case !u.Enabled:
			state = "no (refusing)"
		case u.Refusing:
			state = "yes (refusing: fault)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", u.Name, u.Protocol, u.Listen, u.Target, state, u.Faults)
	}
	if err := tw.Flush(); err != nil {
		return exitFailed
	}
	return exitOK
}
