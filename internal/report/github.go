package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteGitHub writes a GitHub Actions workflow command for every mutant
// that was not killed, annotating the line of its fragment: an error for
// one that survived, timed out or does not compile, a notice for one that
// crashed (detected, but by no test). show returns the command that shows
// a mutant, with the flags that chose it, for the annotation's hint.
func (r *Report) WriteGitHub(w io.Writer, show func(id string) string) error {
	for _, m := range r.Mutants {
		level, msg := "error", ""
		switch m.Status {
		case Killed:
			continue
		case Crashed:
			level, msg = "notice", "no test failed, but the test binary crashed under this mutant: "+m.Reason
		case Survived:
			msg = "no test failed under this mutant: the suite cannot tell it from the reference. Add a test that observes the difference (" + show(m.ID) + ")."
		case NotCovered:
			msg = "no test reaches this code, so no test can catch a fault in it. Add a test that runs it (" + show(m.ID) + ")."
		case Timeout:
			msg = "the test run under this mutant was " + m.Reason
		case BuildFailed:
			msg = "this mutant does not compile:\n" + m.Output
		}
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
