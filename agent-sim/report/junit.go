package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// The JUnit XML shapes CI systems read (Jenkins, GitLab, GitHub
// reporters): one testsuite per scenario, one testcase per run.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr,omitempty"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string         `xml:"name,attr"`
		Classname string         `xml:"classname,attr"`
		Time      string         `xml:"time,attr"`
		Failures  []junitProblem `xml:"failure"`
		Error     *junitProblem  `xml:"error"`
		SystemOut *junitText     `xml:"system-out"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",cdata"`
	}
	// junitText is CDATA so evidence keeps its quotes and line breaks
	// readable in the file.
	junitText struct {
		Text string `xml:",cdata"`
	}
)

// WriteJUnit writes JUnit XML: a testsuite per scenario, a testcase per
// persona × host run (named "persona/host"), a failure per error-severity
// finding, an error when the run itself failed. Warnings and info
// findings, and the call transcript, go to system-out.
func (r Report) WriteJUnit(w io.Writer) error {
	doc := junitSuites{Name: "mcpchaos", Time: seconds(r.DurationMS)}
	index := map[string]int{}
	for _, run := range r.Runs {
		i, ok := index[run.Scenario]
		if !ok {
			i = len(doc.Suites)
			index[run.Scenario] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: run.Scenario})
			if !run.StartedAt.IsZero() {
				doc.Suites[i].Timestamp = run.StartedAt.UTC().Format("2006-01-02T15:04:05")
			}
		}
		s := &doc.Suites[i]
		tc := junitCase{Name: run.Persona + "/" + run.Host, Classname: run.Scenario, Time: seconds(run.DurationMS)}
		var out strings.Builder
		for _, f := range run.Findings {
			line := fmt.Sprintf("%s %s", f.ID, f.Title)
			if f.Tool != "" {
				line += " (" + f.Tool + ")"
			}
			if f.Known() {
				fmt.Fprintf(&out, "%s (known from the baseline): %s: %s\n", f.Severity, line, f.Evidence)
				continue
			}
			if f.Severity == judge.SeverityError {
				tc.Failures = append(tc.Failures, junitProblem{Message: line, Type: f.ID,
					Text: f.Evidence + "\nfix: " + f.Hint})
				continue
			}
			fmt.Fprintf(&out, "%s: %s: %s\n", f.Severity, line, f.Evidence)
		}
		if run.Error != "" {
			tc.Error = &junitProblem{Message: "the run failed", Type: "run", Text: run.Error}
			if run.ScenarioError {
				tc.Error.Message, tc.Error.Type = "the scenario does not fit the server", "scenario"
			}
			s.Errors++
		}
		if len(tc.Failures) > 0 {
			s.Failures++
		}
		writeTranscript(&out, run)
		if out.Len() > 0 {
			tc.SystemOut = &junitText{Text: out.String()}
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
	}
	for i := range doc.Suites {
		s := &doc.Suites[i]
		var ms int64
		for _, run := range r.Runs {
			if run.Scenario == s.Name {
				ms += run.DurationMS
			}
		}
		s.Time = seconds(ms)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// writeTranscript lists a run's calls, one line each, for system-out.
func writeTranscript(w io.Writer, run RunReport) {
	if len(run.Calls) == 0 {
		return
	}
	fmt.Fprintf(w, "calls (budget %d, converged %t):\n", run.Budget, run.Converged)
	for _, c := range run.Calls {
		fmt.Fprintf(w, "  %d %s → %s", c.N, c.Tool, c.Channel)
		if c.Channel == transcript.ChannelProtocolError {
			fmt.Fprintf(w, " %d", c.Code)
		}
		if c.Late != nil {
			fmt.Fprintf(w, " (a %s came late, after %s s)", c.Late.Channel, seconds(c.Late.ElapsedMS))
		}
		if c.Crash != nil && c.Crash.Host != "" {
			fmt.Fprintf(w, " (crashed; host: %s)", c.Crash.Host)
		}
		if c.Decision.Action != "" {
			fmt.Fprintf(w, " → %s: %s", c.Decision.Action, c.Decision.Reason)
		}
		fmt.Fprintln(w)
	}
}

// seconds renders milliseconds as JUnit's decimal seconds.
func seconds(ms int64) string {
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}
