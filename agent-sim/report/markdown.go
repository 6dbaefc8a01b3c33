package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown (for a pull
// request comment or a job summary): the runs table, then each run's
// findings with evidence and fix.
func (r Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	s := r.Summary
	fmt.Fprintf(bw, "# mcpchaos report\n\n")
	fmt.Fprintf(bw, "Seed %d · %d run(s) · %d converged · %d failed · findings: %d error, %d warning, %d info\n\n",
		r.Seed, s.Runs, s.Converged, s.Failed, s.Findings[judge.SeverityError], s.Findings[judge.SeverityWarning], s.Findings[judge.SeverityInfo])
	if s.Unread > 0 {
		fmt.Fprintf(bw, "%s\n\n", mdText(unreadLine(s.Unread)))
	}
	fmt.Fprintln(bw, "| Scenario | Persona | Host | Calls | Converged | Side effects (intended / committed) | Findings |")
	fmt.Fprintln(bw, "|---|---|---|---:|---|---:|---|")
	for _, run := range r.Runs {
		tot := run.SideEffectsTotal()
		fmt.Fprintf(bw, "| %s | %s | %s | %d / %d | %s | %d / %d | %s |\n", mdText(run.Scenario), mdText(run.Persona), mdText(run.Host),
			len(run.Calls), run.Budget, yesNo(run.Converged), tot.Intended, tot.Committed, findingsCell(run, ", ", "**"+run.failedLabel()+"**", "—"))
	}
	wrote := false
	for _, run := range r.Runs {
		if len(run.Findings) == 0 && run.Error == "" && len(run.Warnings) == 0 {
			continue
		}
		if !wrote {
			fmt.Fprintf(bw, "\n## Findings\n")
			wrote = true
		}
		fmt.Fprintf(bw, "\n### %s · %s · %s\n\n", mdText(run.Scenario), mdText(run.Persona), mdText(run.Host))
		if run.Error != "" {
			fmt.Fprintf(bw, "- **%s**: %s\n", run.failedLabel(), mdText(run.Error))
		}
		for _, w := range run.Warnings {
			fmt.Fprintf(bw, "- **scenario warning**: %s\n", mdText(w))
		}
		for _, f := range run.Findings {
			where := ""
			if f.Tool != "" {
				where = " · " + mdCode(f.Tool)
			}
			if f.Call > 0 {
				where += fmt.Sprintf(" · call %d", f.Call)
			}
			if f.Baseline != "" {
				where += " · " + f.Baseline
			}
			fmt.Fprintf(bw, "- **%s** %s%s — %s: %s%s\n  - Fix: %s\n", f.ID, f.Severity, where, mdText(f.Title), mdText(basisNote(f.Basis)), mdText(f.Evidence), mdText(f.Hint))
		}
	}
	if b := r.Baseline; b != nil {
		fmt.Fprintf(bw, "\n## Baseline\n\nAgainst %s: %d new, %d known, %d gone.\n", mdCode(b.File), b.New, b.Known, len(b.Gone))
		if len(b.Gone) > 0 {
			fmt.Fprintln(bw, "\nGone since the baseline:")
			for _, g := range b.Gone {
				tool := ""
				if g.Tool != "" {
					tool = " · " + mdCode(g.Tool)
				}
				fmt.Fprintf(bw, "- **%s** %s%s — %s · %s · %s\n", g.ID, g.Severity, tool, mdText(g.Scenario), mdText(g.Persona), mdText(g.Host))
			}
		}
	}
	return bw.Flush()
}

// mdText makes text safe on one Markdown line: no line breaks, and the
// characters that would start markup escaped.
func mdText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;", "|", `\|`, "[", `\[`, "]", `\]`)
	return r.Replace(s)
}

// mdCode renders s as inline code, with a fence longer than any run of
// backticks inside it.
func mdCode(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
