package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// TextOptions shape the text report.
type TextOptions struct {
	// Color adds ANSI colours (severities, the findings column); set it
	// only when writing to a terminal.
	Color bool
	// Width is the line width findings are wrapped to; 0 means 100.
	Width int
}

const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiGreen  = "\x1b[32m"
	ansiBold   = "\x1b[1m"
)

// paint colours s when enabled.
func paint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return code + s + ansiReset
}

func severityColor(s judge.Severity) string {
	switch s {
	case judge.SeverityError:
		return ansiRed
	case judge.SeverityWarning:
		return ansiYellow
	case judge.SeverityInfo:
		return ansiCyan
	}
	return ansiGreen
}

// WriteText writes a table of runs under a heading per scenario (so
// that a long name is never cut and the columns stay narrow), then each
// scenario's findings with their evidence and fix hint, then what went
// away since a baseline, then a summary line.
func (r Report) WriteText(w io.Writer, opts TextOptions) error {
	width := opts.Width
	if width <= 0 {
		width = 100
	}
	bw := bufio.NewWriter(w)
	s := r.Summary
	fmt.Fprintf(bw, "%s · seed %d · %d run(s) · %d converged · %d failed\n\n",
		paint(opts.Color, ansiBold, "mcpchaos report"), r.Seed, s.Runs, s.Converged, s.Failed)
	writeTextTable(bw, r.Runs, opts)
	writeTextFindings(bw, r.Runs, opts, width)
	if r.Baseline != nil {
		writeTextGone(bw, *r.Baseline)
	}

	fmt.Fprintf(bw, "\nfindings: %d error, %d warning, %d info", s.Findings[judge.SeverityError], s.Findings[judge.SeverityWarning], s.Findings[judge.SeverityInfo])
	if s.Worst != "" {
		fmt.Fprintf(bw, " · worst: %s", paint(opts.Color, severityColor(s.Worst), string(s.Worst)))
	}
	if b := r.Baseline; b != nil {
		fmt.Fprintf(bw, " · against baseline %s: %d new, %d known, %d gone", b.File, b.New, b.Known, len(b.Gone))
	}
	fmt.Fprintln(bw)
	if s.Unread > 0 {
		fmt.Fprintf(bw, "%s\n", unreadLine(s.Unread))
	}
	return bw.Flush()
}

// textColumns are the runs table's columns, under each scenario heading.
var textColumns = []string{"PERSONA", "HOST", "FAULT", "CALLS", "CONVERGED", "INTENDED", "COMMITTED", "CHANNELS", "FINDINGS"}

// writeTextTable writes the column header, then for each scenario its
// full name on a line of its own and its runs below, indented. Columns
// are aligned over the whole table, by rune count; colour goes on after
// padding, so escape codes never move a column.
func writeTextTable(w io.Writer, runs []RunReport, opts TextOptions) {
	rows := make([][]string, len(runs))
	widths := make([]int, len(textColumns))
	for i, h := range textColumns {
		widths[i] = utf8.RuneCountInString(h)
	}
	for i, run := range runs {
		tot := run.SideEffectsTotal()
		rows[i] = []string{run.Persona, run.Host, orDash(strings.Join(run.Faults, "+")),
			fmt.Sprintf("%d/%d", len(run.Calls), run.Budget), yesNo(run.Converged),
			strconv.Itoa(tot.Intended), strconv.Itoa(tot.Committed), orDash(channelsCell(run.Calls)), textFindingsCell(run)}
		for j, c := range rows[i] {
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string, last string) string {
		var b strings.Builder
		b.WriteString("  ")
		for j, c := range cells[:len(cells)-1] {
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)+2))
		}
		b.WriteString(last)
		return b.String()
	}
	fmt.Fprintln(w, line(textColumns, textColumns[len(textColumns)-1]))
	for i, run := range runs {
		if i == 0 || run.Scenario != runs[i-1].Scenario {
			fmt.Fprintln(w, paint(opts.Color, ansiBold, run.Scenario))
		}
		color := severityColor(run.Worst())
		if run.Error != "" {
			color = ansiRed
		}
		fmt.Fprintln(w, line(rows[i], paint(opts.Color, color, rows[i][len(rows[i])-1])))
	}
}

// textFindingsCell is the FINDINGS column: the run's finding IDs, those
// known from a baseline after "known:".
func textFindingsCell(run RunReport) string {
	if run.Error != "" {
		return run.failedLabel()
	}
	fresh, known := splitFindingIDs(run)
	switch {
	case len(fresh) == 0 && len(known) == 0:
		return "-"
	case len(known) == 0:
		return strings.Join(fresh, " ")
	case len(fresh) == 0:
		return "known: " + strings.Join(known, " ")
	}
	return strings.Join(fresh, " ") + " · known: " + strings.Join(known, " ")
}

// channelsCell says how a run's calls ended, compactly: each channel
// (with its code for a protocol or transport error) in call order, a run
// of the same one as "×n".
func channelsCell(calls []transcript.Call) string {
	var parts []string
	prev, n := "", 0
	flush := func() {
		if n == 1 {
			parts = append(parts, prev)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%s ×%d", prev, n))
		}
	}
	for _, c := range calls {
		ch := string(c.Channel)
		if c.Channel == transcript.ChannelProtocolError || c.Code != 0 {
			ch += " " + strconv.Itoa(c.Code)
		}
		if ch == prev {
			n++
			continue
		}
		flush()
		prev, n = ch, 1
	}
	flush()
	return strings.Join(parts, ", ")
}

// writeTextGone lists the baseline's findings that went away.
func writeTextGone(w io.Writer, b BaselineDiff) {
	if len(b.Gone) == 0 {
		return
	}
	fmt.Fprintf(w, "\ngone since baseline %s\n", b.File)
	for _, g := range b.Gone {
		fmt.Fprintf(w, "  %-7s %s  %s  %s (%s·%s)\n", g.Severity, g.ID, orDash(g.Tool), g.Scenario, g.Persona, g.Host)
	}
}

// writeTextFindings lists findings once per scenario: the same finding
// under several personas and hosts is one entry that says in which runs
// it was made, with the first run's evidence; a fix hint is printed the
// first time its check appears. A matrix repeats itself, a reader should
// not have to.
func writeTextFindings(bw io.Writer, runs []RunReport, opts TextOptions, width int) {
	type entry struct {
		f    judge.Finding
		runs []string
	}
	hinted := map[string]bool{}
	for i := 0; i < len(runs); {
		j := i
		for j < len(runs) && runs[j].Scenario == runs[i].Scenario {
			j++
		}
		group := runs[i:j]
		i = j
		var order []string
		entries := map[string]*entry{}
		var failed []RunReport
		for _, run := range group {
			if run.Error != "" {
				failed = append(failed, run)
			}
			for _, f := range run.Findings {
				key := f.ID + "\x00" + f.Tool + "\x00" + f.Baseline
				e, ok := entries[key]
				if !ok {
					e = &entry{f: f}
					entries[key] = e
					order = append(order, key)
				}
				e.runs = append(e.runs, run.Persona+"·"+run.Host)
			}
		}
		// The scenario's warnings are the same in each of its runs.
		warnings := group[0].Warnings
		if len(order) == 0 && len(failed) == 0 && len(warnings) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n%s\n", paint(opts.Color, ansiBold, group[0].Scenario))
		for _, w := range warnings {
			writeWrapped(bw, "  scenario warning: ", w, width)
		}
		for _, run := range failed {
			writeWrapped(bw, "  "+run.failedLabel()+" ("+run.Persona+"·"+run.Host+"): ", run.Error, width)
			if run.Server != nil && run.Server.Exited {
				writeWrapped(bw, "  server: ", serverExitText(*run.Server), width)
			}
		}
		for _, key := range order {
			e := entries[key]
			f := e.f
			where := ""
			if len(group) > 1 {
				where = fmt.Sprintf(" (in %d of %d runs)", len(e.runs), len(group))
				if len(e.runs) < len(group) {
					where = fmt.Sprintf(" (in %d of %d runs: %s)", len(e.runs), len(group), strings.Join(e.runs, ", "))
				}
			}
			mark := ""
			if f.Baseline != "" {
				mark = " [" + f.Baseline + "]"
			}
			fmt.Fprintf(bw, "  %s %s%s  %s  %s%s\n", paint(opts.Color, severityColor(f.Severity), fmt.Sprintf("%-7s", f.Severity)),
				f.ID, mark, orDash(f.Tool), f.Title, where)
			writeWrapped(bw, "      ", basisNote(f.Basis)+f.Evidence, width)
			if !hinted[f.ID] {
				hinted[f.ID] = true
				writeWrapped(bw, "      fix: ", f.Hint, width)
			}
		}
	}
}

// serverExitText describes how the server process ended.
func serverExitText(p transcript.ProcessExit) string {
	s := fmt.Sprintf("exited with code %d", p.Code)
	if p.Signal != "" {
		s = "killed by " + p.Signal
	}
	if tail := strings.TrimSpace(p.StderrTail); tail != "" {
		lines := strings.Split(tail, "\n")
		s += "; stderr: " + strings.TrimSpace(lines[len(lines)-1])
	}
	return s
}

// writeWrapped writes prefix then text wrapped to width, continuation
// lines indented to the prefix.
func writeWrapped(w io.Writer, prefix, text string, width int) {
	lines := wrapText(text, width-len(prefix))
	fmt.Fprintf(w, "%s%s\n", prefix, firstOr(lines))
	pad := strings.Repeat(" ", len(prefix))
	for _, l := range restOf(lines) {
		fmt.Fprintf(w, "%s%s\n", pad, l)
	}
}

// wrapText splits text into lines of at most width bytes at spaces; a
// word longer than width gets a line of its own.
func wrapText(text string, width int) []string {
	width = max(width, 20)
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(text) {
		if cur.Len() > 0 && cur.Len()+1+len(word) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

func firstOr(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}

func restOf(lines []string) []string {
	if len(lines) < 2 {
		return nil
	}
	return lines[1:]
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// clipCell shortens a table cell to n runes with an ellipsis.
func clipCell(s string, n int) string {
	r := []rune(s)
	if n < 8 || len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
