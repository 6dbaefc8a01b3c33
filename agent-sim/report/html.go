package report

import (
	"fmt"
	"html/template"
	"io"
	"unicode/utf8"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
)

// htmlReport is a self-contained page (no scripts, no external assets) so
// a CI artifact opens anywhere, offline included; a browser test checks
// that it loads nothing from the network.
var htmlReport = template.Must(template.New("report").Funcs(template.FuncMap{
	"ids":    func(r RunReport) string { return findingsCell(r, " ", r.failedLabel(), "") },
	"total":  func(r RunReport) SideEffectTotal { return r.SideEffectsTotal() },
	"failed": func(r RunReport) string { return r.failedLabel() },
	"worst":  func(r RunReport) string { return string(r.Worst()) },
	"count":  func(s Summary, sev string) int { return s.Findings[judge.Severity(sev)] },
	"chart":  newHTMLChart,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mcpchaos report</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
th{background:#f3f3f3}td.num{text-align:right}
.error{color:#b00020}.warning{color:#a65f00}.info{color:#00639b}
code{background:#f3f3f3;padding:0 .2em}li{margin:.4em 0}
svg.chart{display:block;max-width:100%;height:auto;font:12px system-ui,sans-serif;margin:.5em 0}
svg.chart .head{font-weight:600}svg.chart .muted{fill:#666}
.legend span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em;vertical-align:-.1em}
</style>
</head>
<body>
<h1>mcpchaos report</h1>
<p>Seed {{.Seed}} · {{.Summary.Runs}} run(s) · {{.Summary.Converged}} converged · {{.Summary.Failed}} failed ·
findings: {{count .Summary "error"}} error, {{count .Summary "warning"}} warning, {{count .Summary "info"}} info</p>
<table>
<tr><th>Scenario</th><th>Persona</th><th>Host</th><th>Calls</th><th>Converged</th><th>Intended</th><th>Committed</th><th>Findings</th></tr>
{{- range .Runs}}
<tr><td>{{.Scenario}}</td><td>{{.Persona}}</td><td>{{.Host}}</td><td class="num">{{len .Calls}} / {{.Budget}}</td><td>{{if .Converged}}yes{{else}}no{{end}}</td><td class="num">{{(total .).Intended}}</td><td class="num">{{(total .).Committed}}</td><td class="{{worst .}}">{{if .Error}}{{failed .}}{{else}}{{ids .}}{{end}}</td></tr>
{{- end}}
</table>
{{- with chart .}}
<h2>Calls and side effects per run</h2>
<svg class="chart" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="Calls per run against its budget, and side effects committed against intended">
<text class="head" x="{{.CallsX}}" y="14">calls / budget</text>
<text class="head" x="{{.EffectsX}}" y="14">side effects committed / intended</text>
{{- range .Rows}}
<g><title>{{.Title}}</title>
<text x="{{.LabelX}}" y="{{.TextY}}" text-anchor="end">{{.Label}}</text>
{{- if .Failed}}
<text class="error" x="{{.CallsX}}" y="{{.TextY}}">run failed</text>
{{- else}}
<rect x="{{.CallsX}}" y="{{.BarY}}" width="{{.BudgetW}}" height="{{.BarH}}" fill="#e6e6e6"/>
<rect x="{{.CallsX}}" y="{{.BarY}}" width="{{.CallsW}}" height="{{.BarH}}" fill="{{.CallsFill}}"/>
<text class="muted" x="{{.CallsTextX}}" y="{{.TextY}}">{{.Calls}}/{{.Budget}}</text>
<rect x="{{.EffectsX}}" y="{{.BarY}}" width="{{.EffectsW}}" height="{{.BarH}}" fill="{{.EffectsFill}}"/>
<rect x="{{.IntendedX}}" y="{{.MarkY}}" width="2" height="{{.MarkH}}" fill="#222"/>
<text class="muted" x="{{.EffectsTextX}}" y="{{.TextY}}">{{.Committed}} · {{.Intended}}</text>
{{- end}}
</g>
{{- end}}
</svg>
<p class="legend">Calls:<span style="background:#2e7d32"></span>converged<span style="background:#b00020"></span>cut off by the budget.
Side effects:<span style="background:#2e7d32"></span>as intended<span style="background:#b00020"></span>more than intended<span style="background:#a65f00"></span>fewer than intended; the black mark is the number intended.</p>
{{- end}}
{{- range .Runs}}{{if or .Findings .Error}}
<h2>{{.Scenario}} · {{.Persona}} · {{.Host}}</h2>
<ul>
{{- if .Error}}
<li class="error"><strong>{{failed .}}</strong>: {{.Error}}</li>
{{- end}}
{{- range .Findings}}
<li><strong class="{{.Severity}}">{{.ID}} {{.Severity}}</strong>{{if .Tool}} <code>{{.Tool}}</code>{{end}}{{if .Call}} call {{.Call}}{{end}}{{if .Baseline}} <em>{{.Baseline}}</em>{{end}} — {{.Title}}: {{.Evidence}}<br>Fix: {{.Hint}}</li>
{{- end}}
</ul>
{{- end}}{{end}}
{{- with .Baseline}}
<h2>Baseline</h2>
<p>Against <code>{{.File}}</code>: {{.New}} new, {{.Known}} known, {{len .Gone}} gone.</p>
{{- if .Gone}}
<p>Gone since the baseline:</p>
<ul>
{{- range .Gone}}
<li><strong class="{{.Severity}}">{{.ID}} {{.Severity}}</strong>{{if .Tool}} <code>{{.Tool}}</code>{{end}} — {{.Scenario}} · {{.Persona}} · {{.Host}}</li>
{{- end}}
</ul>
{{- end}}
{{- end}}
</body>
</html>
`))

// WriteHTML writes the report as one self-contained HTML page.
func (r Report) WriteHTML(w io.Writer) error {
	return htmlReport.Execute(w, r)
}

// htmlChart is the report's inline SVG bar chart, laid out in Go so the
// template only places numbers: one row per run, calls against the
// budget on the left, side effects committed against intended on the
// right — the two numbers a reader compares across the matrix.
type htmlChart struct {
	Width, Height    int
	CallsX, EffectsX int
	Rows             []htmlChartRow
}

type htmlChartRow struct {
	Title, Label                  string
	LabelX, TextY, BarY, BarH     int
	MarkY, MarkH                  int
	Failed                        bool
	CallsX, BudgetW, CallsW       int
	CallsTextX                    int
	CallsFill                     string
	Calls, Budget                 int
	EffectsX, EffectsW, IntendedX int
	EffectsTextX                  int
	EffectsFill                   string
	Committed, Intended           int
}

// Chart geometry, in CSS pixels.
const (
	chartRowH     = 22
	chartTop      = 24
	chartBarH     = 14
	chartCalls    = 220 // width of the calls column at the budget
	chartEffects  = 220 // width of the side-effects column at its maximum
	chartGap      = 64  // room for a bar's number
	chartLabelMax = 60  // runes of a row label; the full one is its tooltip
	chartCharW    = 6   // an estimate of a 12px sans-serif character
)

// Bar colours: the same meaning as the text's severity colours.
const (
	chartGood  = "#2e7d32"
	chartBad   = "#b00020"
	chartShort = "#a65f00"
)

func newHTMLChart(r Report) *htmlChart {
	if len(r.Runs) == 0 {
		return nil
	}
	longest, most := 0, 1
	for _, run := range r.Runs {
		longest = max(longest, utf8.RuneCountInString(chartLabel(run)))
		t := run.SideEffectsTotal()
		most = max(most, t.Committed, t.Intended)
	}
	labelW := max(120, min(longest, chartLabelMax)*chartCharW)
	c := &htmlChart{CallsX: labelW + 12}
	c.EffectsX = c.CallsX + chartCalls + chartGap
	c.Width = c.EffectsX + chartEffects + chartGap
	c.Height = chartTop + len(r.Runs)*chartRowH + 4
	for i, run := range r.Runs {
		y := chartTop + i*chartRowH
		t := run.SideEffectsTotal()
		row := htmlChartRow{
			Label: clipCell(chartLabel(run), chartLabelMax), LabelX: labelW,
			TextY: y + 15, BarY: y + 4, BarH: chartBarH, MarkY: y + 1, MarkH: chartBarH + 6,
			Failed: run.Error != "", CallsX: c.CallsX, BudgetW: chartCalls,
			Calls: len(run.Calls), Budget: run.Budget, CallsFill: chartGood,
			EffectsX: c.EffectsX, Committed: t.Committed, Intended: t.Intended, EffectsFill: chartGood,
		}
		row.Title = fmt.Sprintf("%s: %d of %d calls, %s; side effects %d committed, %d intended",
			chartLabel(run), row.Calls, row.Budget, map[bool]string{true: "converged", false: "did not converge"}[run.Converged],
			t.Committed, t.Intended)
		if run.Error != "" {
			row.Title = chartLabel(run) + ": run failed"
		}
		if !run.Converged {
			row.CallsFill = chartBad
		}
		// A run may exceed its budget only through a bug; clamp the bar
		// rather than draw over the next column.
		row.CallsW = chartCalls * min(row.Calls, max(row.Budget, 1)) / max(row.Budget, 1)
		row.CallsTextX = c.CallsX + chartCalls + 6
		switch {
		case t.Committed > t.Intended:
			row.EffectsFill = chartBad
		case t.Committed < t.Intended:
			row.EffectsFill = chartShort
		}
		row.EffectsW = chartEffects * max(t.Committed, 0) / most
		row.IntendedX = c.EffectsX + chartEffects*t.Intended/most - 1
		if t.Intended == 0 {
			row.IntendedX = c.EffectsX
		}
		row.EffectsTextX = c.EffectsX + chartEffects + 6
		c.Rows = append(c.Rows, row)
	}
	return c
}

func chartLabel(r RunReport) string {
	return r.Scenario + " · " + r.Persona + " · " + r.Host
}
