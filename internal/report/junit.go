package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
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
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes r as JUnit XML: one test case per mutant. A killed or
// crashed mutant passes; a mutant the suite missed (survived, not
// covered) is a failure; one that gives no verdict on the suite (timed
// out, did not compile, flaky) is an error.
func (r *Report) WriteJUnit(w io.Writer) error {
	suite := junitSuite{Name: "mutate " + r.Package, Tests: len(r.Mutants), Time: seconds(r.Seconds)}
	if r.Isolation != "" {
		suite.Properties = &junitProperties{[]junitProperty{{Name: "isolation", Value: string(r.Isolation)}}}
		if r.LandlockABI > 0 {
			suite.Properties.Property = append(suite.Properties.Property, junitProperty{Name: "landlock_abi", Value: strconv.Itoa(r.LandlockABI)})
		}
		if len(r.Binds) > 0 {
			suite.Properties.Property = append(suite.Properties.Property, junitProperty{Name: "binds", Value: strings.Join(r.Binds, " ")})
		}
	}
	for _, m := range r.Mutants {
		c := junitCase{Name: m.ID, Classname: fmt.Sprintf("mutants.step%d", m.Step), Time: seconds(m.Seconds)}
		where := fmt.Sprintf("%s:%d: %s", m.File, m.Line, m.Title)
		switch d := m.Status.def(); d.junit {
		case junitPass:
			if m.Status == Crashed {
				c.SystemOut = "crashed: " + m.Reason + "\n" + m.Output
			} else {
				c.SystemOut = "killed by:\n" + strings.Join(m.FailedTests, "\n")
			}
		case junitFailure:
			suite.Failures++
			c.Failure = &junitProblem{Message: d.junitMsg(m), Type: string(m.Status), Text: where}
		case junitError:
			suite.Errors++
			text := where
			if m.Status == BuildFailed {
				text += "\n" + m.Output
			}
			c.Error = &junitProblem{Message: d.junitMsg(m), Type: string(m.Status), Text: text}
		case junitSkipped:
			c.Skipped = &junitProblem{Message: d.junitMsg(m), Type: string(m.Status), Text: where}
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
