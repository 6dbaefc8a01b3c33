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
		{name: "add", synopsis: "NAME --target ADDR [--protocol tcp|http|mcp] [--listen ADDR]", summary: "create an upstream (a proxy)", run: upstreamAdd},
		{name: "rm", synopsis: "NAME", summary: "remove an upstream and its faults", run: upstreamRm},
		{name: "enable", synopsis: "NAME", summary: "reopen a disabled upstream's proxy", run: upstreamToggle(true)},
		{name: "disable", synopsis: "NAME", summary: "stop an upstream's proxy: connections are refused until enable or halt", run: upstreamToggle(false)},
	}, args, std)
}

func upstreamList(c commandContext, args []string) int {
	a := newAPICommand(c, "[flags]", "List the upstreams of the server at --api.")
	cl, _, code := a.start(args, 0)
	if cl == nil {
		return code
	}
	ups, err := cl.Upstreams(c.ctx)
	return a.reply(err, api.UpstreamList{Upstreams: ups}, func(w io.Writer) int { return printUpstreams(w, ups...) })
}

func upstreamAdd(c commandContext, args []string) int {
	a := newAPICommand(c, "NAME --target ADDR [flags]", `
Create an upstream: a proxy listening on --listen (default: a free loopback
port, printed) in front of --target. Point your MCP server at the proxy.`)
	target := a.fs.String("target", "", "the real upstream: host:port, or http://host:port")
	protocol := a.fs.String("protocol", "tcp", "tcp, http or mcp (an MCP front in front of a Streamable HTTP MCP server)")
	listen := a.fs.String("listen", "", "the proxy's address (default 127.0.0.1:0: a free port)")
	cl, pos, code := a.start(args, 1)
	if cl == nil {
		return code
	}
	u, err := cl.AddUpstream(c.ctx, api.UpstreamRequest{Name: pos[0], Protocol: *protocol, Listen: *listen, Target: *target})
	return a.reply(err, u, func(w io.Writer) int { return printUpstreams(w, u) })
}

func upstreamRm(c commandContext, args []string) int {
	a := newAPICommand(c, "NAME", "Remove an upstream: its proxy stops and its faults are removed.")
	cl, pos, code := a.start(args, 1)
	if cl == nil {
		return code
	}
	d, err := cl.RemoveUpstream(c.ctx, pos[0])
	return a.reply(err, d, func(w io.Writer) int {
		fmt.Fprintf(w, "removed upstream %s and %d fault(s)\n", d.Name, d.FaultsRemoved)
		return exitOK
	})
}

func upstreamToggle(enable bool) func(commandContext, []string) int {
	return func(c commandContext, args []string) int {
		a := newAPICommand(c, "NAME", "Enable or disable an upstream's proxy. A disabled upstream refuses connections (no TTL) until enabled or halted.")
		cl, pos, code := a.start(args, 1)
		if cl == nil {
			return code
		}
		toggle := cl.DisableUpstream
		if enable {
			toggle = cl.EnableUpstream
		}
		u, err := toggle(c.ctx, pos[0])
		return a.reply(err, u, func(w io.Writer) int { return printUpstreams(w, u) })
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
