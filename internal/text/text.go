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

// quoteMax is how many characters of a file's token Quote shows.
const quoteMax = 64

// Quote quotes s, a token of an input file, as an error shows it: at most
// its first quoteMax characters, control characters escaped, so that a
// message never carries a whole line of a file that was not meant to be
// read, nor moves the terminal's cursor.
func Quote(s string) string {
	if r := []rune(s); len(r) > quoteMax {
		s = string(r[:quoteMax]) + "…"
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

// Name returns a name from an input (a file's path, a learner's name) as
// one line of output shows it: every character that is not printable
// (a control character, a newline, an escape sequence's ESC, a
// right-to-left override) and every invalid byte escaped as Go writes it
// (\x1b, \n, \u202e), so that a name cannot move the terminal's cursor or
// begin a line of its own. A printable name is unchanged.
func Name(s string) string { return escape(s, "") }

// Prose returns text from an input (a learner's answer, a test's message)
// as output shows it: as Name does, but its lines and tabs kept.
func Prose(s string) string { return escape(s, "\n\t") }

// escape escapes the characters of s that are not printable, but those
// of keep.
func escape(s, keep string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) && !strings.ContainsRune(keep, r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case strconv.IsPrint(r) || strings.ContainsRune(keep, r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}
