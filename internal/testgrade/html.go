package testgrade

import (
	"html/template"
	"io"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/classout"
)

// WriteHTML writes the class page: a row per learner's file, a column per
// chaff (✓ caught by a valid test, ✗ missed), the points, and the wheats
// the file's tests failed on, each with those tests; then, per chaff, how
// many files caught it; then each file's invalid tests with why, and the
// files that could not be graded with their problem.
func WriteHTML(w io.Writer, grades []*Grade) error {
	chaffs, _ := columns(grades)
	page := testsPage{Files: len(grades)}
	for _, id := range chaffs {
		col := chaffColumn{ID: id}
		for _, g := range grades {
			for _, c := range g.Chaffs {
				if c.ID == id {
					col.Title = c.Title
					if c.Caught() {
						col.Caught++
					}
				}
			}
			if g.Problem == "" {
				col.Graded++
			}
		}
		page.Chaffs = append(page.Chaffs, col)
	}
	for _, g := range grades {
		row := testsRow{Grade: g, Name: strings.TrimSuffix(filepath.Base(g.File), "_test.go")}
		for _, id := range chaffs {
			cell := testsCell{Class: "missed", Mark: "✗", Title: "no valid test fails under " + id}
			switch word := g.chaffWord(id); {
			case g.Problem != "":
				cell = testsCell{Class: "invalid", Mark: "!", Title: "the file could not be graded: see below"}
			case word == "caught":
				for _, c := range g.Chaffs {
					if c.ID == id {
						cell = testsCell{Class: "caught", Mark: "✓", Title: "caught by " + strings.Join(c.CaughtBy, ", ")}
					}
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		seen := map[string]int{}
		for _, inv := range g.Invalid {
			if inv.On == Reference {
				continue
			}
			if i, ok := seen[inv.On]; ok {
				row.Wheats[i].Tests = append(row.Wheats[i].Tests, inv.Test)
				continue
			}
			seen[inv.On] = len(row.Wheats)
			row.Wheats = append(row.Wheats, wheatFailed{ID: inv.On, Title: inv.Title, Tests: []string{inv.Test}})
		}
		page.Rows = append(page.Rows, row)
	}
	return testsTemplate.Execute(w, page)
}

type testsPage struct {
	Files  int
	Chaffs []chaffColumn
	Rows   []testsRow
}

type chaffColumn struct {
	ID, Title      string
	Caught, Graded int
}

type testsRow struct {
	*Grade
	Name   string
	Cells  []testsCell
	Wheats []wheatFailed
}

type testsCell struct {
	Class, Mark, Title string
}

type wheatFailed struct {
	ID, Title string
	Tests     []string
}

var testsTemplate = template.Must(template.New("tests").Funcs(template.FuncMap{
	"reason": Invalid.reason,
	"style":  func() template.CSS { return classout.PageStyle },
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mutate check: the class's tests</title>
<style>
{{style}}
td.caught { background: #dcfae6; color: #067647; }
td.missed { background: #fde2e1; color: #b42318; }
td.invalid { background: #fef0c7; color: #b54708; }
code { white-space: nowrap; }
pre { white-space: pre-wrap; }
</style>
</head>
<body>
<h1>The class's tests: {{.Files}} {{if eq .Files 1}}file{{else}}files{{end}}, {{len .Chaffs}} chaffs</h1>
<p>A row is one learner's test file; a cell is one chaff (a mutant of the catalog): ✓ a valid test caught it (hover for which), ✗ missed, ! the file could not be graded. A test that fails on the reference or under a wheat (a correct alternative) is invalid and earns nothing; the last column names the wheats the file's tests failed under.</p>
<table id="class">
<thead><tr><th>learner, file</th>{{range .Chaffs}}<th class="chaff" title="{{.ID}}: {{.Title}}"><span>{{.ID}}</span></th>{{end}}<th>points</th><th>invalid tests</th><th>wheats failed</th></tr></thead>
<tbody>
{{range .Rows}}{{$name := .Name}}<tr><th title="{{.File}}">{{if .Learner}}{{.Learner}}<br>{{end}}<code>{{.File}}</code></th>{{range $i, $c := .Cells}}<td class="cell {{.Class}}" data-file="{{$name}}" data-chaff="{{(index $.Chaffs $i).ID}}" title="{{.Title}}">{{.Mark}}</td>{{end}}<td class="num">{{.Points}}/{{.Max}}</td><td class="num">{{len .Invalid}}/{{len .Tests}}</td><td class="wheats">{{range $i, $w := .Wheats}}{{if $i}}; {{end}}<code title="{{$w.Title}}">{{$w.ID}}</code> ({{range $j, $t := $w.Tests}}{{if $j}}, {{end}}{{$t}}{{end}}){{else}}none{{end}}</td></tr>
{{end}}</tbody>
<tfoot><tr><th>caught</th>{{range .Chaffs}}<td class="share" data-chaff="{{.ID}}" title="{{.Caught}} of {{.Graded}} graded files caught {{.ID}}">{{.Caught}} of {{.Graded}}</td>{{end}}<td colspan="3"></td></tr></tfoot>
</table>
{{range .Rows}}{{if or .Invalid .Problem}}<h2>{{if .Learner}}{{.Learner}}: {{end}}<code>{{.File}}</code></h2>
{{with .Problem}}<p>It could not be graded, and earns nothing:</p>
<pre>{{.}}</pre>
{{end}}{{with .Invalid}}<ul class="invalid">{{range .}}<li><code>{{.Test}}</code> {{reason .}}{{with .Message}}<pre>{{.}}</pre>{{end}}</li>{{end}}</ul>
{{end}}{{end}}{{end}}
</body>
</html>
`))
