package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/mcpchaos/mcpchaos/api"
)

// The client commands (upstream, fault, halt, events, run --api) talk to
// a running `mcpchaos serve` through api.Client. They share --api (default
// $MCPCHAOS_API, else the server's default address), the token from
// $MCPCHAOS_TOKEN, and the actor sent for the audit trail ($MCPCHAOS_ACTOR,
// else $USER).

// apiFlags are the flags every client command has.
type apiFlags struct {
	url  string
	json bool
}

func (a *apiFlags) register(fs *flag.FlagSet) {
	def := os.Getenv("MCPCHAOS_API")
	if def == "" {
		def = "http://" + api.DefaultAddr
	}
	fs.StringVar(&a.url, "api", def, "control API URL (env MCPCHAOS_API); the token is read from MCPCHAOS_TOKEN")
	fs.BoolVar(&a.json, "json", false, "print the API's JSON instead of a table")
}

// client returns a client of the API at a.url.
func (a *apiFlags) client() (*api.Client, error) { return newAPIClient(a.url) }

func newAPIClient(url string) (*api.Client, error) {
	actor := os.Getenv("MCPCHAOS_ACTOR")
	if actor == "" {
		actor = os.Getenv("USER")
	}
	return api.NewClient(url, api.ClientOptions{Token: os.Getenv("MCPCHAOS_TOKEN"), Actor: actor, HTTPClient: &http.Client{}})
}

// apiFail reports a failed API call and returns the exit code: a 4xx is
// the request's fault (usage), anything else a failure.
func apiFail(std stdio, cmd string, err error) int {
	var e *api.Error
	if !errors.As(err, &e) {
		fmt.Fprintf(std.err, "mcpchaos %s: %v\n", cmd, err)
		return exitFailed
	}
	msg := e.Message
	if e.Field != "" && e.Line > 0 {
		msg = fmt.Sprintf("%s (field %s, line %d, column %d)", msg, e.Field, e.Line, e.Column)
	} else if e.Field != "" {
		msg = fmt.Sprintf("%s (field %s)", msg, e.Field)
	}
	fmt.Fprintf(std.err, "mcpchaos %s: %d %s: %s\n", cmd, e.Status, e.Code, msg)
	if e.Status == http.StatusUnauthorized {
		fmt.Fprintln(std.err, "  (set MCPCHAOS_TOKEN to the server's token)")
	}
	if e.Status >= 400 && e.Status < 500 {
		return exitUsage
	}
	return exitFailed
}

// parseInterleaved parses flags that may come after positional arguments
// ("fault add NAME --kind latency"), which the flag package alone does
// not allow. It returns the positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string, std stdio) (pos []string, done bool, code int) {
	for {
		if done, code := parse(fs, args, std); done {
			return nil, true, code
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, false, exitOK
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// printJSON writes v indented.
func printJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return exitFailed
	}
	return exitOK
}

// subcommand is one verb of a client command (upstream add, fault rm).
type subcommand struct {
	name, synopsis, summary string
	run                     func(ctx commandContext, args []string) int
}

// commandContext carries what a subcommand needs.
type commandContext struct {
	ctx  context.Context
	std  stdio
	name string // "fault add", for messages and usage
}

// dispatch runs the subcommand named by args[0].
func dispatch(ctx context.Context, group string, subs []subcommand, args []string, std stdio) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		w := std.err
		code := exitUsage
		if len(args) > 0 {
			w, code = std.out, exitOK
		}
		fmt.Fprintf(w, "Usage: mcpchaos %s <command> [flags]\n\nCommands:\n", group)
		for _, s := range subs {
			fmt.Fprintf(w, "  %s %s\n      %s\n", s.name, s.synopsis, s.summary)
		}
		fmt.Fprintf(w, "\nRun \"mcpchaos %s <command> --help\" for its flags.\n", group)
		return code
	}
	for _, s := range subs {
		if s.name == args[0] {
			return s.run(commandContext{ctx: ctx, std: std, name: group + " " + s.name}, args[1:])
		}
	}
	fmt.Fprintf(std.err, "mcpchaos %s: unknown command %q\n", group, args[0])
	return exitUsage
}

// needArgs checks the number of positional arguments.
func needArgs(c commandContext, fs *flag.FlagSet, pos []string, n int) bool {
	if len(pos) == n {
		return true
	}
	fmt.Fprintf(c.std.err, "mcpchaos %s: want %d argument(s), got %d\n", c.name, n, len(pos))
	fs.Usage()
	return false
}
