package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

const wrapHelp = `
Run an MCP stdio server between a host (Claude Code, Cursor, VS Code, your
agent) and the server, and record each tools/call: put "mcpchaos wrap --"
in front of the server's command in the host's configuration
(docs/gameday.md).

Every byte passes through unchanged and in order, both ways; the server's
stderr is the host's; a frame wrap cannot read passes through unread.
Signals the host sends (SIGINT, SIGTERM, SIGHUP) go to the server, and wrap
exits as the server did: with its exit status, or of the same signal.

With --report, each session and call goes to a running "mcpchaos serve"
(its control API; the token is read from MCPCHAOS_TOKEN), whose fault layer
then attributes the upstream traffic of each call to it, counts it in
/metrics and streams it in /v1/events. Reports never slow the traffic: when
serve is slow or gone they are dropped (counted, said on stderr at exit).
--hold makes each call's request wait, at most that long, for serve to
have taken the call's start, so that the upstream traffic the server
causes at once is attributed too. When the server exits, wrap waits at
most --report-flush (2s) for the reports still queued to reach serve
before it exits itself, so a short session is reported whole.

--tamper changes how replies reach the host, to learn how it handles each
channel (off by default): protocol_error sends a tool error as a JSON-RPC
error, drop never delivers the reply. --tamper-when restricts it to the
calls an expression matches (tool, args, attempt, call, session); it
expires after --tamper-ttl.`

// wrapFlags are wrap's settings.
type wrapFlags struct {
	report, session string
	hold            time.Duration
	tamper, when    string
	tamperCode      int
	tamperLimit     int
	tamperTTL       time.Duration
	maxFrame        int
	drain           time.Duration
	reportFlush     time.Duration
}

func (w *wrapFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.report, "report", os.Getenv("MCPCHAOS_REPORT"), "send sessions and calls to the serve whose API is at this URL, e.g. http://127.0.0.1:7777 (env MCPCHAOS_REPORT)")
	fs.DurationVar(&w.hold, "hold", 0, "with --report: hold each tools/call up to this long until serve has its start (0: never hold)")
	fs.StringVar(&w.session, "session", "", "the session's ID (default wrap-PID-START)")
	fs.StringVar(&w.tamper, "tamper", "", "tamper with replies: protocol_error or drop (default: never)")
	fs.StringVar(&w.when, "tamper-when", "", `only the calls this expression matches, e.g. 'tool == "create_order" && attempt == 1'`)
	fs.IntVar(&w.tamperCode, "tamper-code", -32603, "the JSON-RPC error code of --tamper protocol_error")
	fs.IntVar(&w.tamperLimit, "tamper-limit", 0, "tamper with at most this many replies (0: no cap)")
	fs.DurationVar(&w.tamperTTL, "tamper-ttl", rules.DefaultTTL, "stop tampering after this long")
	fs.IntVar(&w.maxFrame, "max-frame", 4<<20, "largest frame read, in bytes; larger ones pass through unread")
	fs.DurationVar(&w.drain, "exit-drain", front.DefaultExitDrain, "how long the server's output is still read after it exited")
	fs.DurationVar(&w.reportFlush, "report-flush", DefaultReportFlush, "with --report: when the server has exited, wait at most this long for the queued reports to reach serve before exiting (0: do not wait)")
}

// DefaultReportFlush is how long wrap waits, once the server has exited,
// for its queued reports to reach serve: a short session's last call and
// its close are still in the queue then, and a host restarts its servers
// often. A serve that answers takes well under a second; one that does
// not costs the host this much at each server exit, no more.
const DefaultReportFlush = 2 * time.Second

// wrapSignals are the signals a host stops its servers with.
var wrapSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

func runWrap(ctx context.Context, args []string, io stdio) int {
	fs := newFlags("wrap", "[flags] -- COMMAND [ARG...]", wrapHelp, io)
	var wf wrapFlags
	wf.register(fs)
	if done, code := parse(fs, args, io); done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(io.err, "mcpchaos wrap: no server command (mcpchaos wrap [flags] -- COMMAND [ARG...])")
		return exitUsage
	}
	opts := front.WrapOptions{Session: wf.session, Signals: wrapSignals, ExitDrain: wf.drain,
		Limits: front.Limits{MaxFrame: wf.maxFrame}}
	var err error
	if opts.Tamper, err = wf.tamperTable(); err != nil {
		fmt.Fprintf(io.err, "mcpchaos wrap: %v\n", err)
		return exitUsage
	}
	var rep *front.Reporter
	if wf.report != "" {
		rep, err = front.NewReporter(front.ReporterOptions{URL: wf.report, Token: os.Getenv("MCPCHAOS_TOKEN"), Hold: wf.hold})
		if err != nil {
			fmt.Fprintf(io.err, "mcpchaos wrap: --report: %v\n", err)
			return exitUsage
		}
		opts.Sink = rep
	}
	// A write to a host that closed its end must fail (and reach the
	// server as its own broken pipe), not kill wrap.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stderr = io.err
	// The host's signals are forwarded, not obeyed: main's interrupt
	// context must not kill the server.
	state, err := front.Wrap(context.WithoutCancel(ctx), cmd, io.in, io.out, opts)
	if rep != nil {
		// Flush: the session's last reports are still queued.
		cctx, cancel := context.WithTimeout(context.Background(), max(wf.reportFlush, 0))
		_ = rep.Close(cctx)
		cancel()
		if st := rep.Stats(); st.Dropped+st.Failed > 0 {
			fmt.Fprintf(io.err, "mcpchaos wrap: %d reports dropped, %d not delivered to %s (%d sent)\n", st.Dropped, st.Failed, wf.report, st.Sent)
		}
	}
	if err != nil {
		fmt.Fprintf(io.err, "mcpchaos wrap: %v\n", err)
		if state == nil {
			return 127 // as a shell says of a command it cannot run
		}
	}
	return exitAs(state)
}

// tamperTable is the rule --tamper asks for, or nil.
func (w *wrapFlags) tamperTable() (*rules.Table, error) {
	if w.tamper == "" {
		if w.when != "" {
			return nil, fmt.Errorf("--tamper-when needs --tamper")
		}
		return nil, nil
	}
	if w.tamperTTL <= 0 {
		return nil, fmt.Errorf("--tamper-ttl %v: must be positive (tampering expires)", w.tamperTTL)
	}
	t := rules.NewTable(rules.TableOptions{ParseFault: inject.ParseFault})
	f := &inject.Tamper{Mode: w.tamper, Code: int64(w.tamperCode)}
	_, err := t.Put(rules.Rule{Name: "wrap-tamper", When: w.when, Limit: w.tamperLimit, TTL: w.tamperTTL, Fault: f.Spec()})
	if err != nil {
		return nil, fmt.Errorf("--tamper: %w", err)
	}
	return t, nil
}
