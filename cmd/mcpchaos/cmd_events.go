package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
)

func runEvents(ctx context.Context, args []string, std stdio) int {
	a := newAPICommand(commandContext{ctx: ctx, std: std, name: "events"}, "[flags]", `
Follow the server's events (GET /v1/events) until interrupted: connections,
HTTP exchanges and injections, one line each (--json: one JSON object
each). If the server drops the stream because this client fell behind, it
reconnects and resumes from the last event it printed.`)
	types := a.fs.String("type", "", "comma-separated event types to show: conn_open, conn_close, exchange, injection, call, session_open, session_close")
	upstreams := a.fs.String("upstream", "", "comma-separated upstreams to show")
	replay := a.fs.Int("replay", 0, "first print the last N events the server remembers")
	noFollow := a.fs.Bool("no-follow", false, "stop after the replay")
	cl, _, code := a.start(args, noArgs)
	if cl == nil {
		return code
	}
	o := api.EventsOptions{Types: splitList(*types), Upstreams: splitList(*upstreams), Replay: *replay, NoFollow: *noFollow}
	print := func(e api.Event) error {
		o.LastEventID = e.Seq
		if a.af.json {
			if printJSON(std.out, e) != exitOK {
				return errors.New("writing an event")
			}
			return nil
		}
		_, err := io.WriteString(std.out, eventLine(e)+"\n")
		return err
	}
	for {
		err := cl.Events(ctx, o, print)
		if !errors.Is(err, api.ErrDropped) {
			if err != nil {
				return a.fail(err)
			}
			return exitOK
		}
		fmt.Fprintf(std.err, "mcpchaos events: the server dropped the stream (this client fell behind); resuming after event %d\n", o.LastEventID)
		o.Replay = 0
	}
}

// eventLine renders an event on one line.
func eventLine(e api.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s #%d %-10s %s", e.Time.Local().Format(time.TimeOnly+".000"), e.Seq, e.Type, e.Upstream)
	add := func(k string, v any, ok bool) {
		if ok {
			fmt.Fprintf(&b, " %s=%v", k, v)
		}
	}
	if e.Method != "" {
		fmt.Fprintf(&b, " %s %s", e.Method, e.Path)
	}
	add("status", e.Status, e.Type == "exchange")
	add("rule", fmt.Sprintf("%q", e.Rule), e.Rule != "")
	add("fault", e.Fault, e.Fault != "")
	add("conn", e.Conn, e.Conn != 0)
	add("tool", e.Tool, e.Tool != "")
	add("call", e.Call, e.Call != 0)
	add("attempt", e.Attempt, e.Attempt != 0)
	add("session", e.Session, e.Session != "")
	add("open_calls", e.OpenCalls, e.OpenCalls > 1)
	add("candidates", e.Candidates, len(e.Candidates) > 0)
	add("channel", e.Channel, e.Channel != "")
	add("code", e.Code, e.Code != 0)
	add("verdict", e.Verdict, e.Verdict != "")
	add("up", e.BytesUp, e.Type == "conn_close")
	add("down", e.BytesDown, e.Type == "conn_close")
	if e.Detail != "" {
		fmt.Fprintf(&b, " (%s)", e.Detail)
	}
	return b.String()
}
