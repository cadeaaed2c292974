package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteGitHub writes a GitHub Actions workflow command for every mutant
// that was not killed, annotating the line of its fragment: an error for
// one that the suite missed or that gives no verdict, a notice for one
// that crashed (detected, but by no test). show returns the command that shows
// a mutant, with the flags that chose it, for the annotation's hint.
func (r *Report) WriteGitHub(w io.Writer, show func(id string) string) error {
	for _, m := range r.Mutants {
		d := m.Status.def()
		if d.github == "" {
			continue
		}
		level, msg := d.github, d.githubMsg(m, show(m.ID))
		title := fmt.Sprintf("mutant %s %s", m.ID, m.Status)
		if m.Title != "" {
			msg = m.Title + ": " + msg
		}
		if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,title=%s::%s\n",
			level, escapeProperty(m.File), m.Line, escapeProperty(title), escapeData(msg)); err != nil {
			return err
		}
	}
	return nil
}

// escapeData and escapeProperty follow the escaping rules of GitHub's
// workflow commands.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
