// CSV for a spreadsheet: a cell that a spreadsheet
// would read as a formula is written as text.
//
// A cell that begins with =, +, -, @, a tab or a carriage return is one
// that Excel, LibreOffice and Google Sheets evaluate (OWASP, "CSV
// Injection", https://owasp.org/www-community/attacks/CSV_Injection; ASVS
// 5.0 requirement 1.2.10): a learner named =HYPERLINK(...) would put a
// link in the instructor's grade sheet. Such a cell is written after a
// single quote, which the spreadsheet takes as "this is text" and does
// not show.
package classout

import (
	"encoding/csv"
	"io"
	"strings"
)

// CSVWriter is a csv.Writer whose cells are never formulas.
type CSVWriter struct {
	w *csv.Writer
}

// NewCSVWriter returns a CSVWriter to w.
func NewCSVWriter(w io.Writer) *CSVWriter { return &CSVWriter{csv.NewWriter(w)} }

// Write writes one record, each cell through csvCell.
func (w *CSVWriter) Write(record []string) error {
	cells := make([]string, len(record))
	for i, c := range record {
		cells[i] = csvCell(c)
	}
	return w.w.Write(cells)
}

// Flush writes what is buffered, and returns the first error of any
// write.
func (w *CSVWriter) Flush() error {
	w.w.Flush()
	return w.w.Error()
}

// csvCell returns s as a cell a spreadsheet shows as text: after a single
// quote if it begins with a character that starts a formula.
func csvCell(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}
