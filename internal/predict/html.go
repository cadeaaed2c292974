package predict

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/classout"
	"github.com/fencelab/fencelab/internal/text"
)

// Invalid is a prediction file that could not be compared, with every
// problem, each at its file:line:col; its learner, as far as the file
// could be read; and the points it could have earned (set by
// Outputs.Class).
type Invalid struct {
	File      string   `json:"file"`
	Learner   string   `json:"learner,omitempty"`
	Problems  []string `json:"problems"`
	MaxPoints int      `json:"max_points"`
}

// Name returns the invalid file's learner, or its path when its learner
// could not be read.
func (inv Invalid) Name() string {
	if inv.Learner != "" {
		return text.Name(inv.Learner)
	}
	return text.Name(inv.File)
}

// WriteHTML writes the class page, one self-contained HTML file for an
// instructor after a lab: a row per learner and a column per mutant, each
// cell exact, differs (what was missed and wrong on hover), not answered
// or invalid; per learner the exact count, points, precision and recall;
// per mutant the share of the valid files that predicted it exactly and
// the tests the class missed most often; then the invalid files with
// their problems. An invalid file is a row of the class, with its
// learner, and no share of a mutant's; the model answer has a row apart
// and counts in nothing.
func (c *Class) WriteHTML(w io.Writer) error {
	page := classPage{Learners: c.Learners(), Invalid: c.Invalid}
	var ids []string
	for _, s := range c.all() {
		for _, o := range s.Matches {
			if !slices.Contains(ids, o.Mutant) {
				ids = append(ids, o.Mutant)
			}
		}
	}
	for _, id := range ids {
		page.Mutants = append(page.Mutants, c.mutantColumn(id))
	}
	for _, s := range c.all() {
		row := classRow{Name: s.Name(), File: s.File, Learner: s.Learner != "", Exact: s.Exact, Total: s.Total, Model: s.Model,
			Points: fmt.Sprintf("%s/%d", points(s.Points), s.MaxPoints), Precision: s.Precision.String(), Recall: s.Recall.String()}
		for _, id := range ids {
			row.Cells = append(row.Cells, cellOf(s, id))
		}
		if s.Model {
			page.Model = &row
			continue
		}
		page.Rows = append(page.Rows, row)
	}
	for _, s := range c.Scores {
		for i, a := range s.Worksheet {
			if i == len(page.Worksheet) {
				page.Worksheet = append(page.Worksheet, worksheetQuestion{ID: a.ID, Question: a.Question})
			}
			page.Worksheet[i].Answers = append(page.Worksheet[i].Answers, worksheetAnswer{Learner: s.Name(), Answer: a.Answer})
		}
	}
	for _, inv := range c.Invalid {
		row := classRow{Name: inv.Name(), File: inv.File, Learner: inv.Learner != "", Invalid: true}
		for range ids {
			row.Cells = append(row.Cells, classCell{Class: "invalid", Mark: "!", Title: "the file is invalid: see its problems below"})
		}
		page.Rows = append(page.Rows, row)
	}
	return classTemplate.Execute(w, page)
}

// mutantColumn sums up the valid files' predictions of mutant id.
func (c *Class) mutantColumn(id string) classMutant {
	col := classMutant{ID: id, Valid: len(c.Scores)}
	missed := map[string]int{}
	for _, s := range c.Scores {
		for _, o := range s.Matches {
			if o.Mutant != id {
				continue
			}
			col.Status = string(o.Status)
			if o.Exact && !o.NotPredicted {
				col.Exact++
			}
			for _, m := range o.Missed {
				missed[m.Test]++
			}
		}
	}
	if col.Valid > 0 {
		col.Share = fmt.Sprintf("%d%%", (100*col.Exact+col.Valid/2)/col.Valid)
	}
	for test, n := range missed {
		col.Missed = append(col.Missed, testCount{Test: test, Files: n})
	}
	slices.SortFunc(col.Missed, func(a, b testCount) int {
		return cmp.Or(cmp.Compare(b.Files, a.Files), strings.Compare(a.Test, b.Test))
	})
	return col
}

// cellOf is the cell of s's prediction of mutant id.
func cellOf(s *Score, id string) classCell {
	for _, o := range s.Matches {
		if o.Mutant != id {
			continue
		}
		switch {
		case o.NotPredicted:
			return classCell{Class: "not-predicted", Mark: "–", Title: "not answered"}
		case o.Exact:
			return classCell{Class: "exact", Mark: "✓", Title: "exact: " + list(o.Failed, "none failed")}
		}
		var why []string
		if len(o.Missed) > 0 {
			var names []string
			for _, m := range o.Missed {
				names = append(names, m.Test)
			}
			why = append(why, "missed "+strings.Join(names, ", "))
		}
		if len(o.Wrong) > 0 {
			why = append(why, "wrongly predicted "+strings.Join(o.Wrong, ", "))
		}
		return classCell{Class: "differs", Mark: "✗", Title: "differs: " + strings.Join(why, "; ")}
	}
	return classCell{Class: "not-predicted", Mark: "–", Title: "not in this file's run"}
}

type classPage struct {
	Learners  int
	Mutants   []classMutant
	Rows      []classRow
	Model     *classRow // the model answer's, apart
	Invalid   []Invalid
	Worksheet []worksheetQuestion
}

// worksheetQuestion is one of the closing questions, with each valid
// file's answer.
type worksheetQuestion struct {
	ID, Question string
	Answers      []worksheetAnswer
}

type worksheetAnswer struct {
	Learner, Answer string
}

type classMutant struct {
	ID, Status string
	Exact      int    // learners whose prediction was exact
	Valid      int    // learners whose file is valid
	Share      string // of the valid files
	Missed     []testCount
}

type testCount struct {
	Test  string
	Files int
}

type classRow struct {
	Name, File                string
	Learner                   bool // Name is the learner's, not the file's
	Invalid, Model            bool
	Exact, Total              int
	Points, Precision, Recall string
	Cells                     []classCell
}

type classCell struct {
	Class, Mark, Title string
}

// rowArgs is what the row template needs: the row and the columns.
type rowArgs struct {
	Row     classRow
	Mutants []classMutant
}

var classTemplate = template.Must(template.New("class").Funcs(template.FuncMap{
	"rowOf": func(r classRow, ms []classMutant) rowArgs { return rowArgs{r, ms} },
	"plus":  func(a, b int) int { return a + b },
	"style": func() template.CSS { return classout.PageStyle },
}).Parse(`{{define "row"}}<tr{{if .Row.Invalid}} class="invalid"{{end}}{{if .Row.Model}} class="model"{{end}}><th title="{{.Row.File}}">{{.Row.Name}}{{if .Row.Learner}}<br><code>{{.Row.File}}</code>{{end}}</th>{{$name := .Row.Name}}{{$ms := .Mutants}}{{range $i, $c := .Row.Cells}}<td class="cell {{.Class}}" data-learner="{{$name}}" data-mutant="{{(index $ms $i).ID}}" title="{{.Title}}">{{.Mark}}</td>{{end}}{{if .Row.Invalid}}<td colspan="4">invalid</td>{{else}}<td class="num">{{.Row.Exact}}/{{.Row.Total}}</td><td class="num">{{.Row.Points}}</td><td class="num">{{.Row.Precision}}</td><td class="num">{{.Row.Recall}}</td>{{end}}</tr>
{{end}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mutate check: the class</title>
<style>
{{style}}
td.exact { background: #dcfae6; color: #067647; }
td.differs { background: #fde2e1; color: #b42318; }
td.invalid { background: #fef0c7; color: #b54708; }
td.not-predicted { color: #667085; }
tr.model th, tr.model td { font-style: italic; }
#missed th code { white-space: nowrap; }
table.worksheet td { white-space: pre-wrap; max-width: 60rem; }
</style>
</head>
<body>
<h1>The class: {{.Learners}} {{if eq .Learners 1}}learner{{else}}learners{{end}}, {{len .Mutants}} mutants</h1>
<p>A cell is one learner's prediction of one mutant: ✓ exact, ✗ differs (hover for what was missed and wrongly predicted), – not answered, ! the file is invalid.</p>
<table id="class">
<thead><tr><th>learner</th>{{range .Mutants}}<th class="mutant" title="{{.ID}}: {{.Status}}"><span>{{.ID}}</span></th>{{end}}<th>exact</th><th>points</th><th>precision</th><th>recall</th></tr></thead>
<tbody>
{{range .Rows}}{{template "row" (rowOf . $.Mutants)}}{{end}}</tbody>
<tfoot><tr><th>exact</th>{{range .Mutants}}<td class="share" data-mutant="{{.ID}}" title="{{.Exact}} of {{.Valid}} valid files predicted {{.ID}} exactly">{{.Share}}</td>{{end}}<td colspan="4"></td></tr>
{{with .Model}}<tr class="model"><td colspan="{{len $.Mutants | plus 5}}">The model answer, not counted in the class:</td></tr>
{{template "row" (rowOf . $.Mutants)}}{{end}}</tfoot>
</table>
<h2>Missed most often</h2>
<p>For each mutant, the tests that failed and that learners did not foresee, with how many learners missed each.</p>
<table id="missed">
<thead><tr><th>mutant</th><th>status</th><th>exact</th><th>tests missed</th></tr></thead>
<tbody>
{{range .Mutants}}<tr><th><code>{{.ID}}</code></th><td>{{.Status}}</td><td class="num">exact in {{.Exact}} of {{.Valid}} valid files</td><td>{{range $i, $m := .Missed}}{{if $i}}, {{end}}<code>{{$m.Test}}</code> ({{$m.Files}}){{else}}none{{end}}</td></tr>
{{end}}</tbody>
</table>
{{with .Worksheet}}<h2>The worksheet</h2>
<p>The learners' answers to the closing questions: read, not graded.</p>
{{range .}}<h3 id="worksheet-{{.ID}}">{{.Question}}</h3>
<table class="worksheet"><tbody>
{{range .Answers}}<tr><th>{{.Learner}}</th><td>{{if .Answer}}{{.Answer}}{{else}}<em>not answered</em>{{end}}</td></tr>
{{end}}</tbody></table>
{{end}}{{end}}{{with .Invalid}}<h2>Invalid files</h2>
<p>These files could not be compared; each must be fixed and checked again.</p>
{{range .}}<h3>{{if .Learner}}{{.Learner}}: {{end}}<code>{{.File}}</code></h3>
<ul class="problems">{{range .Problems}}<li><code>{{.}}</code></li>{{end}}</ul>
{{end}}{{end}}
</body>
</html>
`))
