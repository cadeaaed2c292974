package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes r as JUnit XML: one test case per mutant. A killed or
// crashed mutant passes; a surviving mutant is a failure; a mutant that
// timed out or did not compile is an error.
func (r *Report) WriteJUnit(w io.Writer) error {
	suite := junitSuite{Name: "mutate " + r.Package, Tests: len(r.Mutants), Time: seconds(r.Seconds)}
	for _, m := range r.Mutants {
		c := junitCase{Name: m.ID, Classname: fmt.Sprintf("mutants.step%d", m.Step), Time: seconds(m.Seconds)}
		where := fmt.Sprintf("%s:%d: %s", m.File, m.Line, m.Title)
		switch m.Status {
		case Killed:
			c.SystemOut = "killed by:\n" + strings.Join(m.FailedTests, "\n")
		case Crashed:
			c.SystemOut = "crashed: " + m.Reason + "\n" + m.Output
		case Survived:
			suite.Failures++
			c.Failure = &junitProblem{Message: "mutant survived: no test failed", Type: string(Survived), Text: where}
		case NotCovered:
			suite.Failures++
			c.Failure = &junitProblem{Message: "mutant not covered: no test reaches it", Type: string(NotCovered), Text: where}
		case Timeout:
			suite.Errors++
			c.Error = &junitProblem{Message: "mutant timed out: " + m.Reason, Type: string(Timeout), Text: where}
		case BuildFailed:
			suite.Errors++
			c.Error = &junitProblem{Message: "mutant does not compile", Type: string(BuildFailed), Text: where + "\n" + m.Output}
		}
		suite.Cases = append(suite.Cases, c)
	}
	doc := junitSuites{
		Name: "mutate", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Time: suite.Time, Suites: []junitSuite{suite},
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }
