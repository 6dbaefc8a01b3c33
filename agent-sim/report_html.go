package agentsim

import (
	"html/template"
	"io"
	"strings"
)

// htmlReport is a self-contained page (no scripts, no external assets) so
// a CI artifact opens anywhere.
var htmlReport = template.Must(template.New("report").Funcs(template.FuncMap{
	"ids":   func(r RunReport) string { return strings.Join(findingIDs(r), " ") },
	"total": func(r RunReport) SideEffectTotal { return r.SideEffectsTotal() },
	"worst": func(r RunReport) string { return string(r.Worst()) },
	"count": func(s Summary, sev string) int { return s.Findings[Severity(sev)] },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mcpchaos report</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
.error{color:#b00020}.warning{color:#a65f00}.info{color:#00639b}
code{background:#f3f3f3;padding:0 .2em}li{margin:.4em 0}
</style>
</head>
<body>
<h1>mcpchaos report</h1>
<p>Seed {{.Seed}} · {{.Summary.Runs}} run(s) · {{.Summary.Converged}} converged · {{.Summary.Failed}} failed ·
findings: {{count .Summary "error"}} error, {{count .Summary "warning"}} warning, {{count .Summary "info"}} info</p>
<table>
<tr><th>Scenario</th><th>Persona</th><th>Host</th><th>Calls</th><th>Converged</th><th>Intended</th><th>Committed</th><th>Findings</th></tr>
{{- range .Runs}}
<tr><td>{{.Scenario}}</td><td>{{.Persona}}</td><td>{{.Host}}</td><td>{{len .Calls}} / {{.Budget}}</td><td>{{if .Converged}}yes{{else}}no{{end}}</td><td>{{(total .).Intended}}</td><td>{{(total .).Committed}}</td><td class="{{worst .}}">{{if .Error}}run failed{{else}}{{ids .}}{{end}}</td></tr>
{{- end}}
</table>
{{- range .Runs}}{{if or .Findings .Error}}
<h2>{{.Scenario}} · {{.Persona}} · {{.Host}}</h2>
<ul>
{{- if .Error}}
<li class="error"><strong>run failed</strong>: {{.Error}}</li>
{{- end}}
{{- range .Findings}}
<li><strong class="{{.Severity}}">{{.ID}} {{.Severity}}</strong>{{if .Tool}} <code>{{.Tool}}</code>{{end}}{{if .Call}} call {{.Call}}{{end}} — {{.Title}}: {{.Evidence}}<br>Fix: {{.Hint}}</li>
{{- end}}
</ul>
{{- end}}{{end}}
</body>
</html>
`))

// WriteHTML writes the report as one self-contained HTML page.
func (r Report) WriteHTML(w io.Writer) error {
	return htmlReport.Execute(w, r)
}
