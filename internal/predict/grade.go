package predict

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/classout"
	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

// Visibilities are when Gradescope shows a result to the learner.
var Visibilities = []string{"visible", "hidden", "after_due_date", "after_published"}

// WriteGradescope writes s as Gradescope's results.json: the score, a test
// per mutant worth its points, passed when the prediction is exact, with
// what was predicted, missed and wrong as its output, and a test that says
// the file was read. visibility says when the learner sees the mutants'
// tests, which give answers away, and so the score; the file's test is
// visible at once. An invalid file scores 0, and its problems are visible
// at once: they give nothing away.
func (s *Score) WriteGradescope(w io.Writer, visibility string) error {
	res := classout.GradescopeResults{Score: round(s.Points), Output: s.summary(), OutputFormat: "text", TestOutputFormat: "text",
		Visibility: visibility, StdoutVisibility: "hidden", Tests: []classout.GradescopeTest{}}
	if len(s.Problems) > 0 {
		res.Visibility = "visible"
		res.Tests = append(res.Tests, classout.SubmissionTest(false, res.Output))
		return writeJSON(w, res)
	}
	read := s.read(visibility)
	res.Tests = append(res.Tests, classout.SubmissionTest(true, read))
	if visibility != "visible" {
		// The heading has the score: the output says what was read.
		res.Output = read
		if len(s.Worksheet) > 0 {
			var b strings.Builder
			s.writeWorksheet(&b)
			res.Output += "\n\n" + strings.TrimRight(b.String(), "\n")
		}
	}
	for _, o := range s.Matches {
		t := classout.GradescopeTest{Name: o.name(), Score: round(o.Points), MaxScore: float64(o.MaxPoints),
			Status: "failed", Output: s.feedback(&o), Visibility: visibility}
		if o.Step > 0 {
			t.Number = fmt.Sprint(o.Step)
		}
		if o.Exact {
			t.Status = "passed"
		}
		res.Tests = append(res.Tests, t)
	}
	return writeJSON(w, res)
}

// read says that s's file was read, and what it answers, without its
// grade; and when the grade shows, for visibility.
func (s *Score) read(visibility string) string {
	name := text.Name(s.File)
	if s.Learner != "" {
		name += " (" + text.Name(s.Learner) + ")"
	}
	msg := fmt.Sprintf("%s: a valid prediction file, %d of %d mutants", name, s.Answered, s.Total)
	if len(s.Worksheet) > 0 {
		msg += fmt.Sprintf(" and %d of %d of the worksheet's questions", s.WorksheetAnswered(), len(s.Worksheet))
	}
	return msg + " answered. Each mutant's grade, and the total, show " + classout.Shows(visibility) + "."
}

// WriteClassroom writes s as the result of a GitHub Classroom runner: a
// test per point of each mutant (classout.ClassroomResult.Add), passing
// when the prediction is exact, and status pass when every prediction is,
// error for an invalid file, fail otherwise. The reporter records the sum
// of the tests' scores out of max_score, and its tables the share of
// passing tests: both are the grade (with -credit partial, the tables
// show the share of exact predictions). The worksheet's answers, for the
// instructor, are not graded: they are in a test's message.
func (s *Score) WriteClassroom(w io.Writer) error {
	res := classout.ClassroomResult{Version: 1, Status: "pass", MaxScore: s.MaxPoints, Tests: []classout.ClassroomTest{}}
	if len(s.Problems) > 0 {
		res.Status = "error"
		res.Tests = append(res.Tests, classout.ClassroomTest{Name: s.File, Status: "error", Message: s.summary(),
			TestCode: "go tool mutate check " + s.File, Filename: s.File})
		return writeJSON(w, res)
	}
	for _, o := range s.Matches {
		res.Add(classout.ClassroomTest{Name: o.name(), Message: s.feedback(&o), TestCode: "go tool mutate show " + o.Mutant, Filename: s.File},
			o.MaxPoints, round(o.Points))
		if !o.Exact {
			res.Status = "fail"
		}
	}
	if len(s.Worksheet) > 0 {
		var b strings.Builder
		s.writeWorksheet(&b)
		res.Note(strings.TrimRight(b.String(), "\n"))
	}
	return writeJSON(w, res)
}

// WriteCSV writes a row per file, for a spreadsheet or an LMS import:
// learner, file, role (learner, invalid or model answer), the exact
// count, points, the most points, precision and recall (empty when
// undefined), then a column per mutant: exact, differs, not answered or
// invalid, and one per worksheet question: the learner's answer. An invalid file's row has its learner, as far as the file
// could be read, and the points it could have earned.
func (c *Class) WriteCSV(w io.Writer) error {
	var ids []string
	for _, s := range c.all() {
		for _, o := range s.Matches {
			if !slices.Contains(ids, o.Mutant) {
				ids = append(ids, o.Mutant)
			}
		}
	}
	var questions []string
	for _, s := range c.Scores {
		for _, a := range s.Worksheet {
			if !slices.Contains(questions, a.ID) {
				questions = append(questions, a.ID)
			}
		}
	}
	header := append([]string{"learner", "file", "role", "exact", "points", "max_points", "precision", "recall"}, ids...)
	for _, q := range questions {
		header = append(header, "worksheet: "+q)
	}
	cw := classout.NewCSVWriter(w)
	cw.Write(header)
	ratio := func(r Ratio) string {
		if !r.Defined() {
			return ""
		}
		return fmt.Sprintf("%.4f", r.Value())
	}
	for _, s := range c.all() {
		role := "learner"
		if s.Model {
			role = "model answer"
		}
		row := []string{s.Learner, s.File, role, fmt.Sprint(s.Exact), points(s.Points), fmt.Sprint(s.MaxPoints), ratio(s.Precision), ratio(s.Recall)}
		for _, id := range ids {
			row = append(row, cellWord(s, id))
		}
		for _, q := range questions {
			row = append(row, s.worksheetAnswer(q))
		}
		cw.Write(row)
	}
	for _, inv := range c.Invalid {
		row := []string{inv.Learner, inv.File, "invalid", "0", "0", fmt.Sprint(inv.MaxPoints), "", ""}
		for range ids {
			row = append(row, "invalid")
		}
		for range questions {
			row = append(row, "")
		}
		cw.Write(row)
	}
	return cw.Flush()
}

// worksheetAnswer returns s's answer to question id, "" if none.
func (s *Score) worksheetAnswer(id string) string {
	for _, a := range s.Worksheet {
		if a.ID == id {
			return a.Answer
		}
	}
	return ""
}

// cellWord is a file's prediction of mutant id in one word.
func cellWord(s *Score, id string) string {
	for _, o := range s.Matches {
		switch {
		case o.Mutant != id:
		case o.NotPredicted:
			return "not answered"
		case o.Exact:
			return "exact"
		default:
			return "differs"
		}
	}
	return "not answered"
}

// name is how a graded mutant is named: its id, after its step and before
// its title when it has them, as in "step 2: take-zero (Take accepts zero
// items)".
func (o *Match) name() string {
	name := o.Mutant
	if o.Step > 0 {
		name = fmt.Sprintf("step %d: %s", o.Step, o.Mutant)
	}
	if o.Title != "" {
		name += " (" + o.Title + ")"
	}
	return name
}

// feedback is what a grade says of one prediction of s: the comparison
// as check prints it, without colour.
func (s *Score) feedback(o *Match) string {
	if len(s.Problems) > 0 {
		return "not compared: " + s.File + " is invalid"
	}
	var b strings.Builder
	o.writeText(&b, Style{}, s.Credit, s.ShowAnswers)
	return strings.TrimRight(b.String(), "\n")
}

// summary is what a grade says of the whole file: the heading and the
// worksheet's answers, or why the file could not be compared.
func (s *Score) summary() string {
	if len(s.Problems) == 0 {
		if len(s.Worksheet) == 0 {
			return s.heading()
		}
		var b strings.Builder
		s.writeWorksheet(&b)
		return s.heading() + "\n\n" + strings.TrimRight(b.String(), "\n")
	}
	return fmt.Sprintf("%s is invalid, so nothing was compared and it scores 0 of %s; fix every problem and check it again:\n%s",
		s.File, text.Count(s.MaxPoints, "point", "points"), strings.Join(s.Problems, "\n"))
}

// round keeps two decimals of a number of points, as they are shown.
func round(p float64) float64 { return math.Round(p*100) / 100 }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Submission returns the score that a grade is for: the one learner's
// file (an invalid one scores nothing against rep's mutants), or, with
// no learner's file, the model answer's. Several learners' files are an
// error: a grade is for one submission.
func (c *Class) Submission(rep *report.Report) (*Score, error) {
	switch {
	case len(c.Scores) == 1 && len(c.Invalid) == 0:
		return c.Scores[0], nil
	case len(c.Scores) == 0 && len(c.Invalid) == 1:
		return invalidScore(c.Invalid[0], rep), nil
	case c.Learners() == 0 && c.Model != nil:
		return c.Model, nil
	}
	return nil, fmt.Errorf("a grade is for one submission, and %d learners' files were given: grade each on its own", c.Learners())
}

// Outputs are the files check writes for a course: the class page, the
// CSV, and one learner's grade for Gradescope (with its visibility) or
// GitHub Classroom. Model is the path of the exercise's model answer,
// "" for none.
type Outputs struct {
	HTML, CSV, Gradescope, Visibility, Classroom string
	Model                                        string
	// Questions are the exercise's closing questions, which the files'
	// worksheets answer.
	Questions []exercise.Question
}

// OutputFile is one file to write: where, what it is, and how; Note is
// something to say first, or "".
type OutputFile struct {
	Path, What, Note string
	Write            func(io.Writer) error
}

// Grading reports whether a grade of one submission is asked for.
func (o *Outputs) Grading() bool { return o.Gradescope != "" || o.Classroom != "" }

// IsModel reports whether path is the model answer's file.
func (o *Outputs) IsModel(path string) bool {
	if o.Model == "" {
		return false
	}
	a, errA := os.Stat(path)
	b, errB := os.Stat(o.Model)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// OneSubmission checks, before anything runs, that a grade has one
// learner's file to grade among files: those that are not the model
// answer.
func (o *Outputs) OneSubmission(files []string) error {
	if !o.Grading() {
		return nil
	}
	var learners []string
	for _, f := range files {
		if !o.IsModel(f) {
			learners = append(learners, f)
		}
	}
	if len(learners) > 1 {
		return fmt.Errorf("-gradescope and -classroom grade one learner's file, and %d were given (%s): grade each on its own", len(learners), strings.Join(learners, ", "))
	}
	return nil
}

// Files returns the files to write for class, graded against rep's
// mutants.
func (o *Outputs) Files(class *Class, rep *report.Report) ([]OutputFile, error) {
	var files []OutputFile
	if o.HTML != "" {
		files = append(files, OutputFile{Path: o.HTML, What: "the class page; open it in a browser", Write: class.WriteHTML})
	}
	if o.CSV != "" {
		files = append(files, OutputFile{Path: o.CSV, What: "a row per prediction file", Write: class.WriteCSV})
	}
	if !o.Grading() {
		return files, nil
	}
	sub, err := class.Submission(rep)
	if err != nil {
		return nil, err
	}
	note := ""
	if sub.Model {
		note = "grading " + sub.File + ", the model answer, as no learner's file was given"
	}
	what := fmt.Sprintf("%s's grade, %s of %s", sub.Name(), points(sub.Points), text.Count(sub.MaxPoints, "point", "points"))
	if o.Gradescope != "" {
		files = append(files, OutputFile{Path: o.Gradescope, What: what + ", for Gradescope", Note: note,
			Write: func(w io.Writer) error { return sub.WriteGradescope(w, o.Visibility) }})
		note = ""
	}
	if o.Classroom != "" {
		files = append(files, OutputFile{Path: o.Classroom, What: what + ", for GitHub Classroom", Note: note, Write: sub.WriteClassroom})
	}
	return files, nil
}

// Paths returns the files o writes, "" for those it does not.
func (o *Outputs) Paths() []string { return []string{o.HTML, o.CSV, o.Gradescope, o.Classroom} }

// Class compares every valid file with rep under credit, the model answer
// marked, and gathers the class with the invalid files.
func (o *Outputs) Class(files []*File, invalid []Invalid, rep *report.Report, credit Credit) *Class {
	invalid = slices.Clone(invalid)
	for i := range invalid {
		invalid[i].MaxPoints = invalidScore(invalid[i], rep).MaxPoints
	}
	var scores []*Score
	for _, f := range files {
		s := Compare(f, rep, credit)
		s.Model = o.IsModel(f.Path)
		if !s.Model {
			s.answerWorksheet(o.Questions, f)
		}
		scores = append(scores, s)
	}
	return newClass(scores, invalid)
}

// KnownOf returns what a prediction file may name when it is compared
// with rep, a run's results: its mutants, every one required, and its
// tests. A generated mutant dropped as not valid Go is still one that a
// file (a template) may predict.
func KnownOf(rep *report.Report) Known {
	var ran []string
	for _, m := range rep.Mutants {
		ran = append(ran, m.ID)
	}
	known := Known{Mutants: slices.Clone(ran), Required: ran, Tests: rep.Baseline.TestNames}
	for _, d := range rep.Dropped {
		known.Mutants = append(known.Mutants, d.ID)
	}
	return known
}

// Write writes the files of o for class, graded against rep's mutants,
// each with create, after saying its note, if any, with say.
func (o *Outputs) Write(class *Class, rep *report.Report, create func(path, what string, write func(io.Writer) error) error, say func(string)) error {
	files, err := o.Files(class, rep)
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.Note != "" {
			say(f.Note)
		}
		if err := create(f.Path, f.What, f.Write); err != nil {
			return err
		}
	}
	return nil
}

// NotGraded is a grade that could not be made, for a reason that is not
// in a learner's file: several files or none were handed in, or the
// grader cannot run the mutants. It is 0 of the exercise's points, and
// says why and what to do, so that the learner sees more than a failed
// autograder.
type NotGraded struct {
	File      string // what was handed in, as far as it is one
	MaxPoints int
	// Why is what the learner reads: what to do, or that the file is not
	// at fault.
	Why string
	// Detail is what the instructor should know: what went wrong on the
	// grader's side, which may name its directories.
	Detail string
}

// WriteGradescope writes n as Gradescope's results.json: a score of 0 and
// why, visible at once, and what the instructor should know in a test
// that only instructors see.
func (n NotGraded) WriteGradescope(w io.Writer) error {
	res := classout.GradescopeResults{Score: 0, Output: n.Why, OutputFormat: "text", TestOutputFormat: "text",
		Visibility: "visible", StdoutVisibility: "hidden", Tests: []classout.GradescopeTest{classout.SubmissionTest(false, n.Why)}}
	if n.Detail != "" {
		res.Tests = append(res.Tests, classout.InstructorTest(n.Detail))
	}
	return writeJSON(w, res)
}

// WriteClassroom writes n as a GitHub Classroom runner's result: status
// error, one test that scores nothing and says why, and what the
// instructor should know (the learner's own repository runs it: nothing
// of a grader's is in it).
func (n NotGraded) WriteClassroom(w io.Writer) error {
	msg := n.Why
	if n.Detail != "" {
		msg += "\n\nFor the instructor: " + n.Detail
	}
	return writeJSON(w, classout.ClassroomResult{Version: 1, Status: "error", MaxScore: n.MaxPoints, Tests: []classout.ClassroomTest{
		{Name: "not graded", Status: "error", Message: msg, TestCode: "go tool mutate check " + n.File, Filename: n.File}}})
}

// WriteNotGraded writes the grades of o that n stands for, each with
// create.
func (o *Outputs) WriteNotGraded(n NotGraded, create func(path, what string, write func(io.Writer) error) error) error {
	if o.Gradescope != "" {
		if err := create(o.Gradescope, "a grade of 0 that says why, for Gradescope", func(w io.Writer) error { return n.WriteGradescope(w) }); err != nil {
			return err
		}
	}
	if o.Classroom != "" {
		return create(o.Classroom, "a grade of 0 that says why, for GitHub Classroom", n.WriteClassroom)
	}
	return nil
}
