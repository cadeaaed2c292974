// Package text holds the small helpers that every output of mutate shares,
// so that they read the same everywhere.
package text

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
)

// Plural returns one when n is 1, and many otherwise.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count returns "1 mutant" or "3 mutants".
func Count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, Plural(n, one, many))
}

// OneLine joins the lines of s with single spaces and cuts it to at most
// max runes, ending in "..." when cut.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-3]) + "..."
}

// Step returns a step number as a table shows it: "-" for none.
func Step(step int) string {
	if step == 0 {
		return "-"
	}
	return fmt.Sprint(step)
}

// Indent prefixes every line of s, without its trailing newlines.
func Indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// StepPrefix returns "step 4, " to open a parenthesis about a mutant, or
// "" for a mutant of no step.
func StepPrefix(step int) string {
	if step == 0 {
		return ""
	}
	return fmt.Sprintf("step %d, ", step)
}

// Wrap joins the words of s into lines of at most width runes (a longer
// word has a line to itself), each after the first starting with indent.
// The first line is taken to follow something as wide as indent, such as
// a label.
func Wrap(s string, width int, indent string) string {
	var b strings.Builder
	n := utf8.RuneCountInString(indent)
	for i, word := range strings.Fields(s) {
		w := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case n+1+w > width:
			b.WriteString("\n" + indent)
			n = utf8.RuneCountInString(indent)
		default:
			b.WriteString(" ")
			n++
		}
		b.WriteString(word)
		n += w
	}
	return b.String()
}

// QuoteMax is how many characters of a file's token Quote shows.
const QuoteMax = 40

// Quote quotes s, a token of an input file, as an error shows it: at most
// its first QuoteMax characters, control characters escaped, so that a
// message never carries a whole line of a file that was not meant to be
// read, nor moves the terminal's cursor.
func Quote(s string) string {
	if r := []rune(s); len(r) > QuoteMax {
		s = string(r[:QuoteMax]) + "…"
	}
	return strconv.Quote(s)
}

// FirstLine returns the first line of s that says something: not blank,
// and not a "# package" header of the go command.
func FirstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return strings.TrimSpace(s)
}

// Bytes returns n bytes in binary units: "1.0 GiB", "512 MiB".
func Bytes(n int64) string {
	return humanize.IBytes(uint64(max(n, 0)))
}
