package agentsim

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
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

func severityColor(s Severity) string {
	switch s {
	case SeverityError:
		return ansiRed
	case SeverityWarning:
		return ansiYellow
	case SeverityInfo:
		return ansiCyan
	}
	return ansiGreen
}

// WriteText writes a table of runs, then each run's findings with their
// evidence and fix hint, then a summary line.
func (r Report) WriteText(w io.Writer, opts TextOptions) error {
	width := opts.Width
	if width <= 0 {
		width = 100
	}
	bw := bufio.NewWriter(w)
	s := r.Summary
	fmt.Fprintf(bw, "%s · seed %d · %d run(s) · %d converged · %d failed\n\n",
		paint(opts.Color, ansiBold, "mcpchaos report"), r.Seed, s.Runs, s.Converged, s.Failed)

	// Colour only goes in the last column: escape codes would count as
	// width in tabwriter and misalign the columns after them.
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tPERSONA\tHOST\tCALLS\tCONVERGED\tINTENDED\tCOMMITTED\tFINDINGS")
	for _, run := range r.Runs {
		tot := run.SideEffectsTotal()
		ids := findingsCell(run, " ", run.failedLabel(), "-")
		color := severityColor(run.Worst())
		if run.Error != "" {
			color = ansiRed
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%d\t%d\t%s\n", clipCell(run.Scenario, width/3), run.Persona, run.Host,
			len(run.Calls), run.Budget, yesNo(run.Converged), tot.Intended, tot.Committed, paint(opts.Color, color, ids))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	writeTextFindings(bw, r.Runs, opts, width)

	fmt.Fprintf(bw, "\nfindings: %d error, %d warning, %d info", s.Findings[SeverityError], s.Findings[SeverityWarning], s.Findings[SeverityInfo])
	if s.Worst != "" {
		fmt.Fprintf(bw, " · worst: %s", paint(opts.Color, severityColor(s.Worst), string(s.Worst)))
	}
	fmt.Fprintln(bw)
	if s.Unread > 0 {
		fmt.Fprintf(bw, "%s\n", unreadLine(s.Unread))
	}
	return bw.Flush()
}

// writeTextFindings lists findings once per scenario: the same finding
// under several personas and hosts is one entry that says in which runs
// it was made, with the first run's evidence; a fix hint is printed the
// first time its check appears. A matrix repeats itself, a reader should
// not have to.
func writeTextFindings(bw io.Writer, runs []RunReport, opts TextOptions, width int) {
	type entry struct {
		f    Finding
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
				key := f.ID + "\x00" + f.Tool
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
			fmt.Fprintf(bw, "  %s %s  %s  %s%s\n", paint(opts.Color, severityColor(f.Severity), fmt.Sprintf("%-7s", f.Severity)),
				f.ID, orDash(f.Tool), f.Title, where)
			writeWrapped(bw, "      ", basisNote(f.Basis)+f.Evidence, width)
			if !hinted[f.ID] {
				hinted[f.ID] = true
				writeWrapped(bw, "      fix: ", f.Hint, width)
			}
		}
	}
}

// serverExitText describes how the server process ended.
func serverExitText(p ProcessExit) string {
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
