package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/mcpchaos/mcpchaos/api"
)

func runGameday(ctx context.Context, args []string, std stdio) int {
	return dispatch(ctx, "gameday", []subcommand{
		{name: "report", synopsis: "[--since 1h] [--format text|json|markdown|html] [--out FILE]",
			summary: "write the report of the live sessions a running serve observed", run: runGamedayReport},
	}, args, std)
}

// runGamedayReport is `mcpchaos gameday report`: GET /v1/live/report,
// written to --out or stdout.
func runGamedayReport(c commandContext, args []string) int {
	a := newAPICommand(c, "[flags]", `
Write the game-day report: the live sessions a running serve observed (its
mcp upstreams' and those of "mcpchaos wrap --report") since a time, graded
with the simulator's judge and written in the formats of "mcpchaos run",
one run per session: scenario = the front and session ID, persona = live,
host = the client's name, its calls, findings (retry loops MC002,
duplicated writes MC003) and side effects (docs/gameday.md).`)
	a.fs.StringVar(&a.af.url, "server", a.af.url, "same as --api: the serve's control API URL")
	token := a.fs.String("token", "", "the serve's token (default $MCPCHAOS_TOKEN)")
	since := a.fs.String("since", "1h", "sessions still open or ended since: a duration back from now (1h, at most 720h) or an RFC 3339 time")
	format := a.fs.String("format", "text", "text, json, markdown or html (--json: json)")
	out := a.fs.String("out", "", "write the report to this file instead of stdout")
	cl, _, code := a.start(args, noArgs)
	if cl == nil {
		return code
	}
	if *token != "" {
		var err error
		if cl, err = api.NewClient(a.af.url, api.ClientOptions{Token: *token, Actor: os.Getenv("USER"), HTTPClient: &http.Client{}}); err != nil {
			return a.fail(err)
		}
	}
	if a.af.json {
		*format = "json"
	}
	var buf bytes.Buffer
	if err := cl.LiveReport(c.ctx, *since, *format, &buf); err != nil {
		return a.fail(err)
	}
	if *out == "" {
		if _, err := c.std.out.Write(buf.Bytes()); err != nil {
			return a.fail(err)
		}
		return exitOK
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return a.fail(fmt.Errorf("writing the report: %w", err))
	}
	fmt.Fprintf(c.std.err, "mcpchaos gameday report: wrote %s\n", *out)
	return exitOK
}
