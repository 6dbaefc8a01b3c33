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

// apiCommand is a client command being run: its flag set, which has
// --api and --json, and where it reports. Its methods do what every
// client command does, so that each says only its flags, its call and
// how it prints the result.
type apiCommand struct {
	commandContext
	fs *flag.FlagSet
	af apiFlags
}

// newAPICommand starts a client command whose usage shows synopsis and
// description.
func newAPICommand(c commandContext, synopsis, description string) *apiCommand {
	a := &apiCommand{commandContext: c, fs: newFlags(c.name, synopsis, description, c.std)}
	a.af.register(a.fs)
	return a
}

// noArgs, as start's n: no positional argument, and one given is reported
// as unexpected (the top-level commands' style) rather than with the
// usage.
const noArgs = -1

// start parses args, checks that n positional arguments were given and
// returns them with a client of the API. A nil client means the command
// must stop with code: help was asked for, or the flags, the arguments or
// --api are wrong.
func (a *apiCommand) start(args []string, n int) (cl *api.Client, pos []string, code int) {
	pos, done, code := parseInterleaved(a.fs, args, a.std)
	if done {
		return nil, nil, code
	}
	if n == noArgs && len(pos) > 0 {
		fmt.Fprintf(a.std.err, "mcpchaos %s: unexpected argument %q\n", a.name, pos[0])
		return nil, nil, exitUsage
	}
	if n != noArgs && !needArgs(a.commandContext, a.fs, pos, n) {
		return nil, nil, exitUsage
	}
	cl, code = a.client()
	return cl, pos, code
}

// client returns a client of the API at --api, or nil and the exit code.
func (a *apiCommand) client() (*api.Client, int) {
	cl, err := a.af.client()
	if err != nil {
		return nil, a.fail(err)
	}
	return cl, exitOK
}

// fail reports a failed API call and returns the exit code (apiFail).
func (a *apiCommand) fail(err error) int { return apiFail(a.std, a.name, err) }

// reply reports err if the call failed; else it prints v as JSON under
// --json, or what text writes.
func (a *apiCommand) reply(err error, v any, text func(w io.Writer) int) int {
	if err != nil {
		return a.fail(err)
	}
	if a.af.json {
		return printJSON(a.std.out, v)
	}
	return text(a.std.out)
}
