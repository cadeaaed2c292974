package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteGitHub writes a GitHub Actions workflow command for every mutant
// that was not killed, annotating the line of its fragment.
func (r *Report) WriteGitHub(w io.Writer) error {
	for _, m := range r.Mutants {
		var msg string
		switch m.Status {
		case Killed:
			continue
		case Survived:
			msg = "no test failed under this mutant: the suite cannot tell it from the reference. Add a test that observes the difference (mutate show " + m.ID + ")."
		case Timeout:
			msg = fmt.Sprintf("the test run under this mutant exceeded %.0fs twice.", r.Limit)
		case BuildFailed:
			msg = "this mutant does not compile:\n" + m.Output
		}
		title := fmt.Sprintf("mutant %s %s", m.ID, m.Status)
		if m.Title != "" {
			msg = m.Title + ": " + msg
		}
		if _, err := fmt.Fprintf(w, "::error file=%s,line=%d,title=%s::%s\n",
			escapeProperty(m.File), m.Line, escapeProperty(title), escapeData(msg)); err != nil {
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
