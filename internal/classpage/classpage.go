// Package classpage holds what the class pages of check -html share, the
// page of predictions (package predict) and the page of learners' test
// files (package testgrade): a table of learners × mutants whose column
// headers read upwards and whose cells show a verdict, with a tooltip.
package classpage

import "html/template"

// Style is the pages' common style sheet: the table, a column header's
// span written upwards, a cell (a td of class "cell"), numbers (a td of
// class "num"). Each page adds the colours of its cells' verdicts.
const Style template.CSS = `body { font-family: system-ui, sans-serif; margin: 1rem 2rem 3rem; max-width: 90rem; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; }
thead th { vertical-align: bottom; }
thead th > span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; }
tbody th { text-align: left; font-weight: normal; }
td.cell { text-align: center; cursor: help; }
td.num, tfoot td { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, monospace; }`
