package report

import (
	"html/template"
	"io"
	"slices"
	"strings"

	elements "github.com/fencelab/fencelab/third_party/mutation-testing-elements"
	emoji "github.com/fencelab/fencelab/third_party/noto-emoji"
)

// WriteHTML writes r as one self-contained HTML page, which needs no
// network: the run drawn by the mutation-testing-elements viewer from its
// Stryker form (WriteStryker), and under it what that viewer does not
// show: the kill matrix as a grid, a row per test that failed under some
// mutant and a column per mutant, with a mark where the test failed (its
// message on hover), then each mutant's contract, rationale, the design
// note's fragment and diff.
func (r *Report) WriteHTML(w io.Writer, src Sources) error {
	sum := r.Summary()
	page := htmlPage{
		Title:    "mutate " + r.Package,
		Summary:  sum.String(),
		Subsumed: sum.Subsumed, Dominators: sum.Dominators,
		Report: r.Stryker(src),
		Viewer: template.JS(elements.JS),
		Icons:  template.CSS(emoji.CSS), Glyphs: emoji.Icons,
		Version: elements.Version,
	}
	failed := map[string]map[string]string{} // test: mutant: message
	for _, m := range r.Mutants {
		page.Mutants = append(page.Mutants, htmlMutant{Mutant: m})
		for i, test := range m.FailedTests {
			if failed[test] == nil {
				failed[test] = map[string]string{}
			}
			failed[test][m.ID] = hoverText(m, test, m.Failures[i].Message)
		}
	}
	// A test of a kill that the baseline's names lack (a result from an
	// older run) still gets its row, after the others.
	var extra []string
	for test := range failed {
		if !slices.Contains(r.Baseline.TestNames, test) {
			extra = append(extra, test)
		}
	}
	slices.Sort(extra)
	for _, test := range slices.Concat(r.Baseline.TestNames, extra) {
		if failed[test] == nil {
			page.Idle = append(page.Idle, test)
			continue
		}
		row := htmlRow{Test: test}
		for _, m := range r.Mutants {
			msg, ok := failed[test][m.ID]
			row.Cells = append(row.Cells, htmlCell{Mutant: m.ID, Failed: ok, Message: msg, Subsumed: sum.Subsumed && !m.Dominator})
		}
		page.Rows = append(page.Rows, row)
	}
	return htmlTemplate.Execute(w, page)
}

// hoverText is what the mark of test under m shows on hover: its message,
// or, for a test that logged nothing, why it failed: its subtests that
// did, or that it said nothing.
func hoverText(m Mutant, test, message string) string {
	if message != "" {
		return message
	}
	var subs []string
	for _, t := range m.FailedTests {
		if strings.HasPrefix(t, test+"/") {
			subs = append(subs, t)
		}
	}
	if len(subs) > 0 {
		return "failed because its subtests failed: " + strings.Join(subs, ", ")
	}
	return "failed, with no message"
}

type htmlPage struct {
	Title, Summary string
	Report         *Stryker     // html/template writes it as JSON, escaped for a script
	Viewer         template.JS  // the component's code, as published
	Icons          template.CSS // the glyphs of its icons (see third_party/noto-emoji)
	Glyphs         string       // drawn out of sight first, so that they load
	Version        string
	Mutants        []htmlMutant
	Rows           []htmlRow
	Idle           []string // tests that no mutant made fail
	// Subsumed says that the run's kill matrix has dominators (see
	// Report.Subsume): the page can show them alone.
	Subsumed   bool
	Dominators int
}

type htmlMutant struct {
	Mutant
}

type htmlRow struct {
	Test  string
	Cells []htmlCell
}

type htmlCell struct {
	Mutant   string
	Failed   bool
	Message  string
	Subsumed bool // not a dominator's: hidden when the page shows the dominators alone
}

var htmlTemplate = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
{{.Icons}}
body { font-family: system-ui, sans-serif; margin: 0; }
.icons { position: absolute; left: -9999px; font-family: "Noto Color Emoji"; }
#fencelab { padding: 1rem 2rem 3rem; max-width: 80rem; }
#fencelab h2 { margin-top: 2rem; }
table.matrix { border-collapse: collapse; font-size: 0.85rem; }
table.matrix th, table.matrix td { border: 1px solid #ccc; padding: 0.2rem 0.4rem; }
table.matrix thead th { vertical-align: bottom; }
table.matrix thead th span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; }
table.matrix tbody th { text-align: left; font-family: ui-monospace, monospace; font-weight: normal; }
table.matrix td { text-align: center; min-width: 1.4rem; }
table.matrix td.failed { background: #fde2e1; color: #b42318; cursor: help; }
table.matrix.dominators-only .subsumed { display: none; }
.status-good { color: #067647; } .status-bad { color: #b42318; } .status-warn { color: #b54708; } .status-none { color: #667085; }
pre.diff { background: #f6f8fa; padding: 0.6rem; overflow-x: auto; font-size: 0.8rem; }
dl.doc dt { font-weight: bold; margin-top: 0.4rem; } dl.doc dd { margin-left: 1.5rem; }
</style>
</head>
<body>
<span class="icons" aria-hidden="true">{{.Glyphs}}</span>
<mutation-test-report-app title-postfix="{{.Title}}"></mutation-test-report-app>
<section id="fencelab">
<h2>Kill matrix</h2>
<p id="summary">{{.Summary}}. A mark is a test that failed under the mutant; hover it for the test's message.</p>
{{if .Subsumed}}<p><label><input type="checkbox" id="dominators-only"> Show only the {{.Dominators}} dominators: each killed by a set of tests that no other mutant's set is strictly inside, the mutants a suite must kill to kill every mutant the run killed.</label></p>{{end}}
<table class="matrix" id="kill-matrix">
<thead><tr><th>test</th>{{range .Mutants}}<th class="status-{{.Status.CSS}}{{if and $.Subsumed (not .Dominator)}} subsumed{{end}}" data-mutant="{{.ID}}" title="{{.ID}}: {{.Status}}{{if .Title}}, {{.Title}}{{end}}{{if .Dominator}} (a dominator){{end}}"><span>{{.ID}}</span></th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr><th>{{.Test}}</th>{{$test := .Test}}{{range .Cells}}{{if .Failed}}<td class="failed{{if .Subsumed}} subsumed{{end}}" data-test="{{$test}}" data-mutant="{{.Mutant}}" title="{{.Message}}">✗</td>{{else}}<td{{if .Subsumed}} class="subsumed"{{end}}></td>{{end}}{{end}}</tr>
{{end}}</tbody>
</table>
{{with .Idle}}<p id="idle">No mutant made {{if eq (len .) 1}}this test{{else}}these {{len .}} tests{{end}} fail: they passed under every mutant of the run: {{range $i, $t := .}}{{if $i}}, {{end}}<code>{{$t}}</code>{{end}}.</p>{{end}}
<h2>Mutants</h2>
{{range .Mutants}}<article id="mutant-{{.ID}}">
<h3>{{.ID}}{{if .Step}} (step {{.Step}}){{end}}: <span class="status-{{.Status.CSS}}">{{.Status}}</span></h3>
{{if .Title}}<p>{{.Title}}</p>{{end}}
<dl class="doc">
{{- with .Contract}}<dt>Contract</dt><dd>{{.}}</dd>{{end}}
{{- with .Rationale}}<dt>Rationale</dt><dd>{{.}}</dd>{{end}}
{{- with .Seed}}<dt>The design note's fragment</dt><dd><code>{{.}}</code></dd>{{end}}
{{- if .FailedTests}}<dt>Failed</dt><dd>{{range $i, $t := .FailedTests}}{{if $i}}, {{end}}<code>{{$t}}</code>{{end}}</dd>{{end}}
{{- with .Reason}}<dt>Reason</dt><dd>{{.}}</dd>{{end}}
{{- with .DuplicateOf}}<dt>Duplicate of</dt><dd>{{.}}: it compiles to the same code</dd>{{end}}
{{- if .Dominator}}<dt>Dominator</dt><dd>no other mutant's killing tests are strictly among its own</dd>{{end}}
{{- with .SubsumedBy}}<dt>Subsumed by</dt><dd>{{range $i, $d := .}}{{if $i}}, {{end}}{{$d}}{{end}}</dd>{{end}}
{{- with .Output}}<dt>Output</dt><dd><pre>{{.}}</pre></dd>{{end}}
</dl>
{{with .Diff}}<pre class="diff">{{.}}</pre>{{end}}
</article>
{{end}}
<p><small>Drawn with mutation-testing-elements {{.Version}} (Apache-2.0).</small></p>
</section>
<script>{{.Viewer}}</script>
<script>document.querySelector('mutation-test-report-app').report = {{.Report}};</script>
{{if .Subsumed}}<script>document.getElementById('dominators-only').addEventListener('change', e => document.getElementById('kill-matrix').classList.toggle('dominators-only', e.target.checked));</script>{{end}}
</body>
</html>
`))
