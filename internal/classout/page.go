// Package classout holds what the outputs of a class's grades share,
// the grades of predictions (package predict) and of learners' test files
// (package testgrade) alike: the class page's style (page.go), GitHub
// Classroom's result (classroom.go), Gradescope's results.json
// (gradescope.go) and CSV that a spreadsheet reads as text (csv.go).
package classout

import "html/template"

// PageStyle is the class pages' common style sheet (check -html: a table
// of learners × mutants whose column headers read upwards and whose cells
// show a verdict, with a tooltip): the table, a column header's
// span written upwards, a cell (a td of class "cell"), numbers (a td of
// class "num"). Each page adds the colours of its cells' verdicts.
const PageStyle template.CSS = `body { font-family: system-ui, sans-serif; margin: 1rem 2rem 3rem; max-width: 90rem; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; }
thead th { vertical-align: bottom; }
thead th > span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; }
tbody th { text-align: left; font-weight: normal; }
td.cell { text-align: center; cursor: help; }
td.num, tfoot td { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, monospace; }`
